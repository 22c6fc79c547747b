// A running domain moved live from the lab's hypervisor A to its hypervisor B over the
// provider's two pooled connections (migrateLive), and the fault a migration must survive:
// B's libvirtd killed between its phases leaves the domain running on A and nothing on B.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as path from "path";
import { domainProvider, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { migrateLive, MigrationProgress } from "../../provider/kinds/domain/migrate";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { hostPool } from "../../provider/pool/host-pool";
import { DomainRef, Libvirt } from "../../provider/libvirt/api";
import { checked } from "../support/checked";
import { diskOf } from "../support/disks";
import { labHost } from "../support/hosts";
import { holdB, labEnv, releaseB, repoRoot } from "../support/lab";
import { pidFromFile, stopProcess } from "../support/pids";
import { domainNames, virsh } from "../support/virsh";

describe("live migration between the lab's two hypervisors", function () {
  this.timeout(300_000);
  const tag = `mg${process.pid}`;
  const hostA = () => labHost(labEnv());
  const hostB = () => labHost(labEnv(), { port: labEnv().b.port, socketPath: labEnv().b.socket });
  const onB = (args: string[]) => virsh(args, labEnv().b.uri);
  const namesOnB = () => domainNames(labEnv().b.uri);
  const volumesOnB = () => {
    onB(["pool-refresh", labEnv().b.pool]);
    return onB(["vol-list", labEnv().b.pool])
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0])
      .filter(Boolean);
  };
  const made: { volumes: VolumeOutputs[]; domains: DomainOutputs[] } = { volumes: [], domains: [] };

  /** A running VM on A on a blank raw disk of its own (no OS: it idles in its firmware, which is all a migration needs). */
  async function vmOnA(name: string): Promise<DomainOutputs> {
    const disk = (
      await volumeProvider.create(await checked(volumeProvider, { host: hostA(), name: `${name}.raw`, format: "raw", capacity: "32MiB" } as VolumeInputs))
    ).outs;
    made.volumes.push(disk);
    const vm = (
      await domainProvider.create(
        await checked(domainProvider, {
          host: hostA(),
          name,
          type: "qemu",
          memory: "128MiB",
          shutdownTimeout: "5s",
          disks: [diskOf(disk)],
          networkInterfaces: [{ network: labEnv().network }],
        }),
      )
    ).outs;
    made.domains.push(vm);
    return vm;
  }

  /** Runs `fn` with A's and B's libvirt from the provider's pool. */
  const withBoth = <T>(fn: (a: Libvirt, b: Libvirt) => Promise<T>) => hostPool.run(hostA(), (a) => hostPool.run(hostB(), (b) => fn(a, b)));

  function removeFromB(name: string): void {
    if (namesOnB().includes(name)) {
      if (/running/.test(onB(["domstate", name]))) onB(["destroy", name]);
      onB(["undefine", name]);
    }
    if (volumesOnB().includes(`${name}.raw`)) onB(["vol-delete", "--pool", labEnv().b.pool, `${name}.raw`]);
  }

  before(holdB);
  after(async () => {
    for (const d of made.domains) {
      removeFromB(d.name);
      await domainProvider.delete(d.uuid, d).catch(() => undefined);
    }
    for (const v of made.volumes) await volumeProvider.delete(v.key, v).catch(() => undefined);
    releaseB();
  });

  it("moves a running VM to B with its disk: the same UUID and MAC, running there by an incoming migration, gone from A", async () => {
    const vm = await vmOnA(`${tag}-live`);
    const macs = virsh(["domiflist", vm.name]).match(/([0-9a-f]{2}:){5}[0-9a-f]{2}/g);
    // 2 MiB/s: the memory takes seconds to go, so progress is told on the way
    virsh(["migrate-setspeed", vm.name, "2"]);
    const progress: MigrationProgress[] = [];
    const moved = await withBoth(async (a, b) =>
      migrateLive(a, b, await a.lookupDomain(vm.name), { address: labEnv().b.migrationAddress, copy: "all", onProgress: (p) => progress.push(p) }),
    );
    assert.ok(progress.length > 0, "progress was told while the data went");
    assert.ok(
      progress.every((p) => p.total > 0 && p.processed <= p.total),
      `each report within its total: ${JSON.stringify(progress)}`,
    );
    assert.strictEqual(moved.name, vm.name);
    assert.strictEqual(onB(["domuuid", vm.name]), vm.uuid, "the same domain");
    // libvirt's record of how it came to run there: not booted, migrated in
    assert.strictEqual(onB(["domstate", "--reason", vm.name]), "running (migrated)");
    assert.deepStrictEqual(onB(["domiflist", vm.name]).match(/([0-9a-f]{2}:){5}[0-9a-f]{2}/g), macs, "the same MAC");
    assert.match(onB(["dominfo", vm.name]), /Persistent:\s+yes/, "defined on B, not only running there");
    assert.ok(volumesOnB().includes(`${vm.name}.raw`), "libvirt made the disk in B's pool and copied it");
    assert.ok(!domainNames().includes(vm.name), "A keeps nothing of the domain");
  });

  it("fails with qemu's words and leaves the VM running on A when A cannot reach B at the address given", async () => {
    const vm = await vmOnA(`${tag}-away`);
    // B's own loopback: from A's namespace, A itself, where no qemu of B listens
    const failure = await withBoth(async (a, b) => migrateLive(a, b, await a.lookupDomain(vm.name), { address: "127.0.0.1", copy: "all" })).then(
      () => undefined,
      (err: Error) => err,
    );
    assert.match(failure?.message ?? "", /Connection refused|Failed to connect/, "the streams' refusal, as qemu says it");
    assert.match(virsh(["domstate", vm.name]), /^running/, "the VM runs on A");
    for (let i = 0; i < 50 && namesOnB().includes(vm.name); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok(!namesOnB().includes(vm.name), "no domain left on B");
  });

  it("Ctrl-C while the data goes: the source's job is aborted, the VM runs on A and nothing stays on B", async () => {
    const vm = await vmOnA(`${tag}-ctrlc`);
    // 1 MiB/s: the memory takes half a minute to go, and Ctrl-C comes a second into it
    virsh(["migrate-setspeed", vm.name, "1"]);
    const ctrlC = new AbortController();
    const failure = await withBoth(async (a, b) => {
      const interrupted: Libvirt = {
        ...a,
        migratePerform: (...args) => (setTimeout(() => ctrlC.abort(new Error("interrupted")), 1000), a.migratePerform(...args)),
      };
      return migrateLive(interrupted, b, await a.lookupDomain(vm.name), { address: labEnv().b.migrationAddress, copy: "all", signal: ctrlC.signal });
    }).then(
      () => undefined,
      (err: Error) => err,
    );
    assert.strictEqual(failure?.message, "interrupted", "the interruption is what the move reports");
    assert.match(virsh(["domstate", vm.name]), /^running/, "the VM runs on A");
    for (let i = 0; i < 50 && namesOnB().includes(vm.name); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok(!namesOnB().includes(vm.name), "no domain left on B");
  });

  it("leaves the VM running on A and nothing on B when B's libvirtd dies between Prepare and Finish", async () => {
    const lab = labEnv();
    const vm = await vmOnA(`${tag}-fault`);
    const killB = async () => {
      await stopProcess(await pidFromFile(lab.b.libvirtdPid), "SIGKILL");
    };
    let failure: Error | undefined;
    try {
      await withBoth(async (a, b) => {
        // B dies once it has made the domain that receives: the streams have nowhere to finish
        const dying: Libvirt = { ...b, migratePrepare: async (...args) => b.migratePrepare(...args).finally(killB) };
        return migrateLive(a, dying, await a.lookupDomain(vm.name), { address: lab.b.migrationAddress, copy: "all" });
      });
    } catch (err) {
      failure = err as Error;
    } finally {
      execFileSync(path.join(repoRoot, "scripts", "lab"), ["start-b"], { stdio: "ignore" });
    }
    assert.ok(failure, "the migration fails");
    assert.match(virsh(["domstate", vm.name]), /^running/, "the VM runs on A");
    const dom: DomainRef = await hostPool.run(hostA(), (a) => a.lookupDomain(vm.name));
    assert.strictEqual(Buffer.from(dom.uuid).toString("hex"), vm.uuid.replace(/-/g, ""), "the same domain on A");
    // B's libvirtd, back, kills the half-received domain it finds; nothing of it is defined there
    for (let i = 0; i < 50 && namesOnB().includes(vm.name); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok(!namesOnB().includes(vm.name), "no domain left on B");
    // (the disk libvirt made in B's pool for the copy stays when B's libvirtd dies: after() removes it)
  });
});
