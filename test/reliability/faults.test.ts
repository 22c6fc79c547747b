// Faults the real parts cannot produce on demand, on a link of the test's own (a proxy): the
// link reset mid-create (before the VM started, and while it waits for its IP), a define whose
// answer is lost, a link blackholed mid-upload, the link reset between operations (the next one
// heals, no error), a health probe timing out during an upload. The lab's own daemons
// restarted or killed: daemon-faults.test.ts.
// Each ends in success on retry or a clear error, and afterwards the host holds no
// object Pulumi does not know about.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { classify } from "../../provider/errors";
import { checkHost } from "../../provider/health/check";
import { setLogSink } from "../../provider/log";
import { hostPool } from "../../provider/pool/host-pool";
import { domainProvider, DomainInputs, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { HostConfig } from "../../provider/ssh/host";
import { checked } from "../support/checked";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { knownHostsFor } from "../support/sshd";
import { TcpProxy } from "../support/tcp-proxy";
import { Known, randomFile } from "../support/known-objects";
import { domainNames, virsh, volumeNames } from "../support/virsh";
import { diskOf } from "../support/disks";
import { tempDir } from "../support/tmp";

const MiB = 1024 * 1024;

describe("faults", function () {
  this.timeout(300_000);
  const tmp = tempDir("faults-");
  const cleanup: (() => Promise<void>)[] = [];
  before(() => {
    process.env.PULUMI_KVM_JOURNAL = path.join(tmp, "leftovers.json");
  });
  after(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
    delete process.env.PULUMI_KVM_JOURNAL;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** An image and an overlay disk through `host`, known to the stack and removed at the end. */
  async function diskFor(host: HostConfig, known: Known, tag: string): Promise<VolumeOutputs> {
    const lab = labEnv();
    const img = (await imageProvider.create(await checked(imageProvider, { host, name: `${tag}-img`, source: { path: lab.image } } as ImageInputs))).outs;
    known.volumes.add(img.name);
    const disk = (
      await volumeProvider.create(await checked(volumeProvider, { host, name: `${tag}-disk`, baseImage: img.name, sourceFormat: img.format } as VolumeInputs))
    ).outs;
    known.volumes.add(disk.name);
    cleanup.push(async () => {
      await volumeProvider.delete(disk.key, disk);
      await imageProvider.delete(img.key, img);
    });
    return disk;
  }

  async function proxiedHost(extra: Partial<HostConfig> = {}): Promise<{ proxy: TcpProxy; host: HostConfig }> {
    const lab = labEnv();
    const proxy = await TcpProxy.start(lab.port);
    cleanup.push(() => proxy.close());
    return { proxy, host: labHost(lab, { port: proxy.port, knownHostsPath: knownHostsFor(lab, [proxy.port], tmp), ...extra }) };
  }

  it("the link reset in the middle of a Domain create, before the VM started: a clear error, nothing left, success on retry", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    const { proxy, host } = await proxiedHost();
    const tag = `flt${process.pid}`;
    const disk = await diskFor(host, known, tag);
    // 4 MiB of user data make the seed upload the one big write of the create: cut in its middle
    const userData = `#cloud-config\n# ${crypto.randomBytes(3 * MiB).toString("base64")}\n`;
    const inputs = await checked(domainProvider, {
      host,
      name: `${tag}-vm`,
      type: "qemu",
      memory: "256MiB",
      shutdownTimeout: "10s",
      disks: [diskOf(disk)],
      networkInterfaces: [{ network: lab.network }],
      cloudInit: { hostname: `${tag}-vm`, userData },
      waitForIp: { timeout: "120s" },
    });
    proxy.cutAfter(2 * MiB);
    const err = await domainProvider.create(inputs).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err, "the create was cut off");
    assert.match(err.message, /creating domain .*-vm/);
    assert.strictEqual((err as { id?: string }).id, undefined, "the VM never ran: nothing for Pulumi to track");
    assert.strictEqual(classify(err).errorClass, "unreachable");
    assert.deepStrictEqual(known.orphans(), [], "the half-made seed (and domain) were rolled back");
    const vm: DomainOutputs = (await domainProvider.create(inputs)).outs;
    known.domains.add(vm.name);
    known.volumes.add(`${vm.name}-seed.iso`);
    assert.match(vm.ipAddress ?? "", /^192\.168\.150\./);
    assert.deepStrictEqual(known.orphans(), []);
    await domainProvider.delete(vm.uuid, vm);
  });

  /** Starts the create and resolves once it has its start reply and asks for addresses (from the trace). */
  async function createUntilWaitingForIp(inputs: DomainInputs): Promise<{ creating: Promise<PartialInit | { outs: DomainOutputs }> }> {
    // a VM libvirt reports running before the start reply reached us is a start whose outcome is unknown
    const trace: string[] = [];
    process.env.PULUMI_KVM_LOG = "1";
    setLogSink((l) => trace.push(l));
    const waiting = () => {
      const started = trace.findIndex((l) => l.includes("rpc=virDomainCreateWithFlags") && !l.includes("error="));
      return started >= 0 && trace.slice(started).some((l) => l.includes("rpc=virDomainInterfaceAddresses"));
    };
    const creating = domainProvider.create(inputs).then(
      ({ outs }) => ({ outs }),
      (e: PartialInit) => e,
    );
    try {
      for (let i = 0; i < 600 && !waiting(); i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      delete process.env.PULUMI_KVM_LOG;
      setLogSink(undefined);
    }
    assert.ok(waiting(), "the create did not reach its wait for the IP");
    return { creating }; // wrapped: an async function would wait for a returned promise
  }
  type PartialInit = Error & { id?: string; properties?: DomainOutputs; reasons?: string[] };

  it("the link reset while a started VM waits for its IP: the wait goes on over a fresh connection and the create succeeds", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    const { proxy, host } = await proxiedHost();
    const tag = `fltrs${process.pid}`;
    const disk = await diskFor(host, known, tag);
    const inputs = await checked(domainProvider, {
      host,
      name: `${tag}-vm`,
      type: "qemu",
      memory: "256MiB",
      shutdownTimeout: "10s",
      disks: [diskOf(disk)],
      networkInterfaces: [{ network: lab.network }],
      waitForIp: { timeout: "120s", source: "lease" },
    });
    const { creating } = await createUntilWaitingForIp(inputs);
    const accepted = proxy.accepted;
    proxy.reset();
    const result = await creating;
    assert.ok("outs" in result, `the create healed: ${(result as Error).message}`);
    known.domains.add(result.outs.name);
    assert.match(result.outs.ipAddress ?? "", /^192\.168\.150\./);
    assert.strictEqual(proxy.accepted, accepted + 1, "one redial");
    await domainProvider.delete(result.outs.uuid, result.outs);
    assert.deepStrictEqual(known.orphans(), []);
  });

  it("the host out of reach while a started VM waits for its IP: the VM is kept and tracked, and the next up continues", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    // a redial that meets silence gives up after 3 s
    const { proxy, host } = await proxiedHost({ connectTimeout: 3 });
    const tag = `fltip${process.pid}`;
    const disk = await diskFor(host, known, tag);
    const inputs = await checked(domainProvider, {
      host,
      name: `${tag}-vm`,
      type: "qemu",
      memory: "256MiB",
      shutdownTimeout: "10s",
      disks: [diskOf(disk)],
      networkInterfaces: [{ network: lab.network }],
      waitForIp: { timeout: "120s", source: "lease" },
    });
    const { creating } = await createUntilWaitingForIp(inputs);
    proxy.reset();
    proxy.mode = "blackhole"; // the redial meets silence
    const err = (await creating) as PartialInit;
    proxy.mode = "pass";
    assert.ok(err instanceof Error, "the create could not observe the VM");
    assert.ok(err.id && err.properties && err.reasons, `a partial-init error Pulumi tracks: ${err.message}`);
    assert.strictEqual(err.properties.uuid, err.id);
    assert.strictEqual(virsh(["domstate", `${tag}-vm`]), "running", "the started VM was not rolled back");
    known.domains.add(`${tag}-vm`);
    assert.deepStrictEqual(known.orphans(), []);
    // the next up: Pulumi updates a resource recorded with init errors
    const { outs } = await domainProvider.update(err.id, err.properties, inputs);
    assert.strictEqual(outs.uuid, err.id);
    assert.match(outs.ipAddress ?? "", /^192\.168\.150\./);
    await domainProvider.delete(outs.uuid, outs);
    assert.deepStrictEqual(known.orphans(), []);
  });

  it("a define whose answer is lost and whose host then stays out of reach: outcome unknown, journalled, and the next create removes it first (no 'already exists', no duplicate)", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    // a redial that meets silence gives up after 3 s
    const { proxy, host } = await proxiedHost({ connectTimeout: 3 });
    const tag = `fltou${process.pid}`;
    const vm = `${tag}-vm`;
    const disk = await diskFor(host, known, tag);
    const inputs = await checked(domainProvider, {
      host,
      name: vm,
      type: "qemu",
      memory: "128MiB",
      running: false,
      disks: [diskOf(disk)],
      cloudInit: { hostname: vm },
    });
    // the seed's path is the last call before the define: from then on no answer comes back
    process.env.PULUMI_KVM_LOG = "1";
    setLogSink((l) => {
      if (l.includes("rpc=virStorageVolGetPath") && l.includes(`${vm}-seed.iso`)) proxy.mode = "replies-lost";
    });
    let err: Error | undefined;
    try {
      const creating = domainProvider.create(inputs).then(
        () => undefined,
        (e: Error) => e,
      );
      for (let i = 0; i < 300 && !domainNames().includes(vm); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(domainNames().includes(vm), "libvirtd defined the domain; its answer is held back");
      proxy.mode = "blackhole"; // the rollback's redials meet silence
      proxy.reset();
      err = await creating;
    } finally {
      delete process.env.PULUMI_KVM_LOG;
      setLogSink(undefined);
      proxy.mode = "pass";
    }
    assert.ok(err, "the create failed");
    assert.match(err.message, /virDomainDefineXMLFlags .*was sent, so whether it took effect is unknown/);
    assert.strictEqual(classify(err).errorClass, "transient");
    const journal = JSON.parse(fs.readFileSync(process.env.PULUMI_KVM_JOURNAL!, "utf8")) as { kind: string; name: string; pid?: number }[];
    assert.deepStrictEqual(
      journal
        .filter((e) => e.name.startsWith(tag))
        .map((e) => [e.kind, e.name, e.pid])
        .sort(),
      [
        ["domain", vm, undefined],
        ["volume", `${vm}-seed.iso`, undefined],
      ],
      "both leftovers journalled for the next operation",
    );
    const leftover = virsh(["domuuid", vm]);
    // the next up: check finds the names free (leftovers, not collisions), create removes them first
    const rechecked = await domainProvider.check(undefined, inputs);
    assert.deepStrictEqual(rechecked.failures, [], "no 'already exists' for our own leftover");
    const { outs } = await domainProvider.create(rechecked.inputs);
    known.domains.add(vm);
    known.volumes.add(`${vm}-seed.iso`);
    assert.notStrictEqual(outs.uuid, leftover, "the leftover was removed and the VM made anew");
    assert.deepStrictEqual(known.orphans(), []);
    await domainProvider.delete(outs.uuid, outs);
    assert.deepStrictEqual(known.orphans(), []);
  });

  it("a link blackholed in the middle of a 512 MiB Image upload: keepalive ends it, the leftover, proven by the mark at its head, goes on the next call", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    const proxy = await TcpProxy.start(lab.port);
    cleanup.push(() => proxy.close());
    const host = labHost(lab, {
      port: proxy.port,
      knownHostsPath: knownHostsFor(lab, [proxy.port], tmp),
      keepaliveInterval: 1,
      keepaliveCount: 3,
      connectTimeout: 3,
    });
    const file = path.join(tmp, "big.raw");
    randomFile(file, 512);
    const inputs = await checked(imageProvider, { host, name: `blackhole${process.pid}.raw`, source: { path: file } } as ImageInputs);
    const started = Date.now();
    const creating = imageProvider.create(inputs);
    await new Promise((r) => setTimeout(r, 1500));
    proxy.mode = "blackhole";
    const err = await creating.then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err, "the upload must fail");
    assert.match(err.message, /creating image default\/blackhole.*(keepalive|did not answer|closed|failed)/s);
    assert.ok(Date.now() - started < 60_000, "no hang");
    proxy.mode = "pass";
    // the leftover could not be removed through the dead link: it is journalled, and the next create removes it first
    const img: ImageOutputs = (await imageProvider.create(inputs)).outs;
    known.volumes.add(img.name);
    assert.strictEqual(img.capacityBytes, 512 * MiB);
    assert.deepStrictEqual(known.orphans(), []);
    await imageProvider.delete(img.key, img);
    fs.rmSync(file);
  });

  it("the link reset between two operations: the next operation redials and succeeds with no error", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    const { proxy, host } = await proxiedHost();
    const vol = (name: string) => checked(volumeProvider, { host, name, capacity: "16MiB" } as VolumeInputs).then((i) => volumeProvider.create(i));
    const a: VolumeOutputs = (await vol(`reset-a-${process.pid}`)).outs;
    known.volumes.add(a.name);
    proxy.reset();
    const b: VolumeOutputs = (await vol(`reset-b-${process.pid}`)).outs;
    known.volumes.add(b.name);
    proxy.reset();
    // a read first (refresh), then deletes
    assert.strictEqual((await volumeProvider.read(a.key, a)).props?.name, a.name);
    await volumeProvider.delete(a.key, a);
    proxy.reset();
    await volumeProvider.delete(b.key, b);
    assert.deepStrictEqual(known.orphans(), []);
    assert.ok(!volumeNames(lab).includes(a.name) && !volumeNames(lab).includes(b.name));
  });

  it("a health probe timing out during an upload leaves the upload to finish", async () => {
    const lab = labEnv();
    const known = new Known(lab);
    const host = labHost(lab);
    const file = path.join(tmp, "probe.raw");
    randomFile(file, 256);
    const inputs = await checked(imageProvider, { host, name: `probe${process.pid}.raw`, source: { path: file } } as ImageInputs);
    await hostPool.connection(host);
    const creating = imageProvider.create(inputs);
    // probe once the upload runs (the volume exists), not after a guessed delay
    const exists = () => {
      try {
        virsh(["vol-info", "--pool", lab.pool, inputs.name]);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && !exists(); i++) await new Promise((r) => setTimeout(r, 25));
    const health = await checkHost(host, { pool: lab.pool, timeoutMs: 5 });
    assert.strictEqual(health.stage, "timeout");
    const img: ImageOutputs = (await creating).outs;
    known.volumes.add(img.name);
    assert.strictEqual(img.capacityBytes, 256 * MiB);
    assert.deepStrictEqual(known.orphans(), []);
    await imageProvider.delete(img.key, img);
  });
});
