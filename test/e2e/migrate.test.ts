// A running VM moved to another host by a config switch, through the real CLI, between the
// lab's hypervisors A and B: the preview shows an update for the VM (its Image and disk are
// replaced, made on B first); a move that B's libvirtd dies in leaves the VM running on A and
// nothing of it on B, as does Ctrl-C during the move, and the next `up` moves it: on B it runs by an incoming migration, the
// same UUID and MAC, with a lease of B's network; nothing of it stays on A. Shut off there, with
// data written into its disk, it moves back to A shut off, the data along; destroy leaves
// nothing on either.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as path from "path";
import { e2eStack, E2eStack } from "../support/pulumi";
import { holdB, labEnv, releaseB, repoRoot } from "../support/lab";
import { legProject, programEnv, programFiles, programIn, testLegs } from "../support/package";
import { pidFromFile, stopProcess } from "../support/pids";
import { runPulumi, until } from "../support/pulumi-process";
import { domainNames, mine, virsh, volumeNames } from "../support/virsh";

const leg = testLegs()[0];

describe(`e2e [${leg.name}]: a running VM moves to another host with pulumi up`, function () {
  this.timeout(900_000);
  const prefix = `mv${process.pid}`;
  const vm = `${prefix}-vm`;
  const onB = (args: string[]) => virsh(args, labEnv().b.uri);
  const volumesOnB = () => {
    onB(["pool-refresh", labEnv().b.pool]);
    return mine(
      onB(["vol-list", labEnv().b.pool])
        .split("\n")
        .map((l) => l.trim().split(/\s+/)[0])
        .filter(Boolean),
    ).sort();
  };
  /** qemu-io on a volume's top layer alone (its base's path is the other host's). */
  const qemuIo = (file: string, command: string) =>
    execFileSync("qemu-io", ["-c", command, `json:${JSON.stringify({ driver: "qcow2", file: { driver: "file", filename: file }, backing: null })}`], {
      encoding: "utf8",
    });
  const macOf = (xml: string) => /<mac address='([^']+)'/.exec(xml)?.[1];
  let e: E2eStack | undefined;

  before(async () => {
    await holdB();
    const dir = programIn(legProject(leg), "migrate", programFiles("migrate"));
    e = await e2eStack(dir, prefix, { prefix }, programEnv(legProject(leg)));
  });
  after(async () => {
    if (e) {
      await e.stack.destroy().catch(() => undefined);
      await e.remove();
    }
    releaseB();
  });

  it("moves it live with one up after the switch, after a move B's libvirtd died in left it running on A; back shut off with its data; destroy leaves nothing on either", async () => {
    const stack = e!.stack;
    const lab = labEnv();
    const up = await stack.up();
    assert.match(up.outputs.ip.value as string, /^192\.168\.150\.\d+$/, "a lease of A's network");
    const uuid = up.outputs.uuid.value as string;
    const mac = macOf(virsh(["dumpxml", vm]));

    await stack.setConfig("onB", { value: "true" });
    const preview = await stack.preview({ diff: true });
    assert.strictEqual(preview.changeSummary.update, 1, `the VM is updated, not replaced: ${JSON.stringify(preview.changeSummary)}`);
    assert.strictEqual(preview.changeSummary.replace, 2, "its Image and disk are made anew on B");
    assert.strictEqual(preview.changeSummary.delete ?? 0, 0);

    // B's libvirtd dies once it has made the domain that receives the VM
    let killed = false;
    const watch = setInterval(() => {
      if (killed || !domainNames(lab.b.uri).includes(vm)) return;
      killed = true;
      void pidFromFile(lab.b.libvirtdPid).then((pid) => stopProcess(pid, "SIGKILL"));
    }, 100);
    let failure: Error | undefined;
    try {
      await stack.up();
    } catch (err) {
      failure = err as Error;
    } finally {
      clearInterval(watch);
      execFileSync(path.join(repoRoot, "scripts", "lab"), ["start-b"], { stdio: "ignore" });
    }
    assert.ok(killed, "the move reached B");
    assert.ok(failure, "the up fails");
    assert.match(
      failure.message,
      new RegExp(`moving domain ${vm} from \\S+:2222 to \\S+:2224 failed: .*; the VM is still on \\S+:2222 \\(running\\), and nothing of it was kept on`),
      "the error says which move failed and where the VM is",
    );
    assert.doesNotMatch(failure.message, /look on the host/, "the VM was found: no advice to look for it");
    console.log(`      the failed move, as pulumi up says it: ${/error: .*moving domain.*$/m.exec(failure.message)?.[0]}`);
    assert.match(virsh(["domstate", vm]), /^running/, "the VM runs on A");
    assert.strictEqual(virsh(["domuuid", vm]), uuid, "the same VM on A");
    for (let i = 0; i < 50 && domainNames(lab.b.uri).includes(vm); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok(!domainNames(lab.b.uri).includes(vm), "no domain of it on B");

    // Ctrl-C twice while the memory goes (1 MiB/s): the provider aborts the migration before
    // the engine's kill, and the VM goes on running on A
    virsh(["migrate-setspeed", vm, "1"]);
    const run = runPulumi(e!, ["up", "--yes", "--skip-preview"]);
    await until(() => domainNames(lab.b.uri).includes(vm), 120_000, "the move to reach B");
    run.interrupt();
    await until(() => /\^C received; cancelling/.test(run.output()), 10_000, "pulumi to take the first Ctrl-C");
    run.interrupt();
    const interrupted = await run.exited;
    assert.notStrictEqual(interrupted.code, 0);
    assert.match(interrupted.output, /SIGINT: stopping 1 create\(s\) or move\(s\) in flight/);
    assert.match(virsh(["domstate", vm]), /^running/, "interrupted, the VM runs on A");
    for (let i = 0; i < 50 && domainNames(lab.b.uri).includes(vm); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok(!domainNames(lab.b.uri).includes(vm), "and nothing of it stays on B");

    // the next up moves it; at 2 MiB/s (virsh migrate-setspeed) its memory takes seconds to go, and the run shows how far it is
    virsh(["migrate-setspeed", vm, "2"]);
    const moved = await stack.up();
    assert.strictEqual(moved.summary.result, "succeeded");
    // (the progress lines come once as the run goes, and again in its diagnostics)
    const progress = [...new Set(moved.stdout.match(/move domain \S+ \d+% \(\d+ of \d+ MiB left, \d+ MiB sent\)/g) ?? [])];
    assert.ok(progress.length > 0, `pulumi up shows the move's progress: ${moved.stdout}`);
    console.log(`      the move's progress, as pulumi up shows it: ${progress.join("; ")}`);
    assert.strictEqual(moved.outputs.uuid.value, uuid, "the same VM");
    assert.strictEqual(onB(["domuuid", vm]), uuid);
    assert.strictEqual(onB(["domstate", "--reason", vm]), "running (migrated)", "moved live: not booted on B");
    assert.match(onB(["dominfo", vm]), /Persistent:\s+yes/);
    assert.strictEqual(macOf(onB(["dumpxml", vm])), mac, "the same MAC");
    assert.match(moved.outputs.ip.value as string, /^192\.168\.160\.\d+$/, "a lease of B's network, asked for when the link came back");
    assert.ok(!domainNames().includes(vm), "A keeps no domain of it");
    assert.deepStrictEqual(mine(volumeNames(lab)), [], "A keeps no volume of it: Image, disk and seed went");
    assert.deepStrictEqual(volumesOnB(), [`${prefix}-disk`, `${prefix}-image`, `${vm}-seed.iso`], "B has its Image, disk and seed");
    assert.deepStrictEqual((await stack.preview()).changeSummary, { same: 4 }, "a second preview is clean");

    // shut off on B, with what a guest wrote in its disk, it moves back to A shut off
    await stack.setConfig("running", { value: "false" });
    await stack.up();
    assert.match(onB(["domstate", vm]), /^shut off/);
    const diskOnB = path.join(lab.b.poolDir, `${prefix}-disk`);
    qemuIo(diskOnB, "write -P 0x5a 1M 64k");
    await stack.setConfig("onB", { value: "false" });
    const back = await stack.up();
    assert.deepStrictEqual({ update: back.summary.resourceChanges?.update, replace: back.summary.resourceChanges?.replace }, { update: 1, replace: 2 });
    assert.strictEqual(virsh(["domuuid", vm]), uuid, "the same VM on A");
    assert.match(virsh(["domstate", vm]), /^shut off/, "still shut off");
    assert.match(qemuIo(path.join(lab.poolDir, `${prefix}-disk`), "read -P 0x5a 1M 64k"), /read 65536\/65536 bytes/, "the data came along");
    assert.ok(!domainNames(lab.b.uri).includes(vm), "B keeps no domain of it");
    assert.deepStrictEqual(volumesOnB(), [], "nor any volume");

    await stack.destroy();
    assert.ok(!domainNames().includes(vm));
    assert.deepStrictEqual(mine(volumeNames(lab)), [], "destroy leaves nothing on A");
    assert.deepStrictEqual(volumesOnB(), [], "nor on B");
  });
});
