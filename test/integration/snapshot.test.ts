// The Snapshot resource and the console command against the lab: one lab-image VM,
// snapshotted running (with and without memory) and shut off, known by its identity; its
// console read by one client at a time.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { create as xml } from "xmlbuilder2";
import { domainProvider, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { snapshotProvider, SnapshotInputs } from "../../provider/kinds/snapshot/lifecycle";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { setLogSink } from "../../provider/log";
import { PartialInitError } from "../../provider/resources/partial-init";
import { checked } from "../support/checked";
import { runCli } from "../support/cli";
import { diskOf } from "../support/disks";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { tempDir } from "../support/tmp";
import { virsh, withForeignDomain } from "../support/virsh";

describe("Snapshot and console", function () {
  this.timeout(300_000);
  const tag = `sn${process.pid}`;
  let image: ImageOutputs;
  let disk: VolumeOutputs;
  let vm: DomainOutputs;
  const snapshotNames = () => virsh(["snapshot-list", vm.name, "--name"]).split("\n").filter(Boolean).sort();
  const snapshot = async (news: Partial<SnapshotInputs>) =>
    (
      await snapshotProvider.create(
        await checked(snapshotProvider, { host: labHost(labEnv()), domain: vm.name, domainUuid: vm.uuid, ...news } as SnapshotInputs),
      )
    ).outs;

  before(async () => {
    const lab = labEnv();
    image = (
      await imageProvider.create(await checked(imageProvider, { host: labHost(lab), name: `${tag}-base.qcow2`, source: { path: lab.image } } as ImageInputs))
    ).outs;
    disk = (
      await volumeProvider.create(
        await checked(volumeProvider, { host: labHost(lab), name: `${tag}.qcow2`, baseImage: image.name, sourceFormat: image.format } as VolumeInputs),
      )
    ).outs;
    const inputs = await checked(domainProvider, {
      host: labHost(lab),
      name: `${tag}-vm`,
      type: "qemu",
      memory: "256MiB",
      shutdownTimeout: "10s",
      disks: [diskOf(disk)],
      networkInterfaces: [{ network: lab.network }],
      waitForIp: { timeout: "120s" },
    });
    try {
      vm = (await domainProvider.create(inputs)).outs;
    } catch (err) {
      // a VM that got no address is kept (created but failed to initialize): after() removes it
      if (err instanceof PartialInitError) vm = err.properties as DomainOutputs;
      throw err;
    }
  });

  after(async () => {
    if (vm) await domainProvider.delete(vm.uuid, vm).catch(() => undefined);
    if (disk) await volumeProvider.delete(disk.key, disk).catch(() => undefined);
    if (image) await imageProvider.delete(image.key, image).catch(() => undefined);
  });

  it("lets one client read the console: a second one is told who may hold it and exits 1; a missing domain exits 1", async () => {
    const lab = labEnv();
    const target = ["--host", `root@127.0.0.1:${lab.port}`, "--identity", lab.key, "--known-hosts", lab.knownHosts];
    let second: Awaited<ReturnType<typeof runCli>> | undefined;
    let secondDone: Promise<void> | undefined;
    const first = await runCli(["console", vm.name, ...target, "--follow"], {
      killAfterMs: 120_000,
      // the second reader starts once the first reads; the first stops when the second is done
      onStderr: (text) => {
        if (secondDone || !/reading domain/.test(text)) return;
        secondDone = runCli(["console", vm.name, ...target]).then((r) => {
          second = r;
        });
      },
      until: new Promise((resolve) => {
        const poll = setInterval(() => {
          if (!secondDone) return;
          clearInterval(poll);
          resolve(secondDone);
        }, 100);
      }),
    });
    assert.ok(second, first.stderr);
    assert.strictEqual(second.code, 1, second.stderr);
    assert.match(
      second.stderr,
      new RegExp(`pulumi-kvm console: domain ${vm.name}: .*\\(another client reads it: a pulumi up waiting for the VM, or virsh console`),
    );
    assert.strictEqual(first.code, 0, `the first reader ran until it was stopped (SIGTERM): ${first.stderr}`);
    const missing = await runCli(["console", `${tag}-none`, ...target]);
    assert.deepStrictEqual([missing.code, missing.stderr.trim()], [1, `pulumi-kvm console: root@127.0.0.1:${lab.port} has no domain named "${tag}-none"`]);
    const usage = await runCli(["console", vm.name, ...target, "--stack", "x"]);
    assert.deepStrictEqual([usage.code, usage.stderr.split("\n")[0]], [2, "pulumi-kvm console: give either --host or --stack"]);
  });

  it("refuses a disk-only snapshot of a running VM with libvirt's reason and what works, then takes one with memory", async () => {
    await assert.rejects(snapshot({ name: "disks-only" }), (err: Error & { property?: string }) =>
      /libvirt cannot take snapshot "disks-only" of domain .*internal snapshot of a running VM must include the memory state.*Set memory: true, stop the VM/s.test(
        err.message,
      ),
    );
    assert.deepStrictEqual(snapshotNames(), [], "nothing was made");
    const s = await snapshot({ name: "running", memory: true, description: "with memory" });
    assert.deepStrictEqual([s.kvmKind, s.state, s.domainUuid, s.description], ["Snapshot", "running", vm.uuid, "with memory"]);
    assert.ok(Math.abs(s.creationTime - Date.now() / 1000) < 120, `creationTime ${s.creationTime}`);
    assert.deepStrictEqual(await snapshotProvider.read(`${s.domainUuid}/running/${s.creationTime}`, s).then((r) => r.props), s);
    await snapshotProvider.delete("", s);
    assert.deepStrictEqual(snapshotNames(), []);
    await snapshotProvider.delete("", s); // gone is success
  });

  it("snapshots a shut-off VM's disks, and never deletes a snapshot someone took later under its name", async () => {
    virsh(["destroy", vm.name]);
    const s = await snapshot({ name: "offline" });
    assert.strictEqual(s.state, "shutoff");
    virsh(["snapshot-delete", vm.name, "offline"]);
    const dir = tempDir("snap-");
    const file = path.join(dir, "s.xml");
    fs.writeFileSync(file, xml().ele("domainsnapshot").ele("name").txt("offline").up().ele("description").txt("someone else's").end());
    // libvirt's creation time has a resolution of a second: a later one differs
    await new Promise((r) => setTimeout(r, 1100));
    virsh(["snapshot-create", vm.name, "--xmlfile", file]);
    const warnings: string[] = [];
    setLogSink((line) => warnings.push(line));
    try {
      assert.strictEqual((await snapshotProvider.read("x", s)).id, "", "refresh: the recorded snapshot is gone");
      await snapshotProvider.delete("x", s);
    } finally {
      setLogSink(undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepStrictEqual(snapshotNames(), ["offline"], "the other snapshot stays");
    assert.ok(
      warnings.some((w) => /snapshot offline of domain .* is not the one this stack made .*delete left it alone/.test(w)),
      warnings.join("\n"),
    );
    virsh(["snapshot-delete", vm.name, "offline"]);
    virsh(["start", vm.name]);
  });

  it("snapshots only the domain of the UUID the stack recorded: never another one under that name, and not without the UUID", async () => {
    const lab = labEnv();
    const missing = await snapshotProvider.check(undefined, { host: labHost(lab), domain: vm.name, name: "s" });
    assert.deepStrictEqual(
      missing.failures.map((f) => f.property),
      ["domainUuid"],
    );
    await withForeignDomain(`${tag}-foreign`, async () => {
      // someone's domain under the name the program gives, with the UUID of the stack's VM
      await assert.rejects(snapshot({ name: "s", domain: `${tag}-foreign` }), (e: Error & { property?: string }) => {
        assert.match(e.message, new RegExp(`the domain ".*-foreign" with UUID ${vm.uuid} is not on the host \\(that UUID is domain "${vm.name}"\\)`));
        assert.strictEqual(e.property, "domainUuid");
        return true;
      });
      await assert.rejects(
        snapshot({ name: "s", domain: `${tag}-foreign`, domainUuid: "0b5b6a7e-1a2b-4c3d-9e8f-001122334455" }),
        /with UUID 0b5b6a7e-1a2b-4c3d-9e8f-001122334455 is not on the host; a domain of that name made by anyone else is never snapshotted/,
      );
      assert.strictEqual(virsh(["snapshot-list", `${tag}-foreign`, "--name"]), "", "a snapshot of the foreign domain");
    });
  });
});
