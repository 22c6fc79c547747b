// Ctrl-C during `pulumi up`, through the real CLI run as a terminal runs it. Pressed
// twice, Pulumi terminates the run and sends SIGINT to the provider process, killing it
// 5 s later: within that time what the create in flight made is removed. When the
// provider dies at once (the engine's kill), what it made stays journalled and the next
// `pulumi up` removes it. Either way the next `up` completes and leaves no orphan.
// One leg: the provider process, not the Node/SDK pair, is under test here.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { e2eStack, E2eStack } from "../support/pulumi";
import { running } from "../support/pids";
import { descendants, PulumiRun, runPulumi, until } from "../support/pulumi-process";
import { labEnv } from "../support/lab";
import { legProject, programFiles, programIn, testLegs, programEnv } from "../support/package";
import { domainNames, mine, virsh, volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

const leg = testLegs()[0];
const lab = labEnv();
const GRACE_MS = 5_000;

describe(`e2e [${leg.name}]: Ctrl-C during pulumi up`, function () {
  this.timeout(900_000);
  const tag = `ic${process.pid}`;
  const work = tempDir("interrupt-");
  const journal = path.join(work, "leftovers.json");
  const bigImage = path.join(work, "big.raw");
  let runs = 0;
  let volumesBefore: string[];
  let domainsBefore: string[];

  before(() => {
    // random bytes: an upload long enough to interrupt (no holes to skip)
    execFileSync("head", ["-c", String(1024 << 20), "/dev/urandom"], { stdio: ["ignore", fs.openSync(bigImage, "w"), "inherit"] });
    volumesBefore = mine(volumeNames(lab));
    domainsBefore = mine(domainNames());
  });
  after(() => {
    fs.rmSync(work, { recursive: true, force: true });
    assert.deepStrictEqual(mine(volumeNames(lab)), volumesBefore, "no volume left behind");
    assert.deepStrictEqual(mine(domainNames()), domainsBefore, "no domain left behind");
  });

  async function userStack(config: Record<string, string>): Promise<E2eStack & { prefix: string }> {
    const prefix = `${tag}x${++runs}`;
    const dir = programIn(legProject(leg), "interrupt", programFiles("user"));
    const e = await e2eStack(dir, prefix, { prefix, ...config }, { ...programEnv(legProject(leg)), PULUMI_KVM_JOURNAL: journal });
    return Object.assign(e, { prefix });
  }
  const ours = (prefix: string) => ({
    volumes: volumeNames(lab).filter((v) => v.startsWith(`${prefix}-`)),
    domains: domainNames().filter((d) => d.startsWith(`${prefix}-`)),
  });
  const journalled = () => (fs.existsSync(journal) ? (JSON.parse(fs.readFileSync(journal, "utf8")) as { name: string }[]).map((e) => e.name) : []);
  const allocated = (volume: string) => (fs.statSync(path.join(lab.poolDir, volume), { throwIfNoEntry: false })?.blocks ?? 0) * 512;

  /** The dynamic provider process of a run. */
  function provider(run: PulumiRun): number {
    const p = descendants(run.pid).find((d) => d.cmd.includes("dynamic-provider"));
    if (!p) throw new Error(`no provider process under pulumi ${run.pid}: ${JSON.stringify(descendants(run.pid))}`);
    return p.pid;
  }

  /** Ctrl-C twice, as a user who does not want to wait; returns the ms until the provider process had exited. */
  async function pressCtrlCTwice(run: PulumiRun, providerPid: number): Promise<number> {
    run.interrupt();
    await until(() => /\^C received; cancelling/.test(run.output()), 10_000, "pulumi to take the first Ctrl-C");
    run.interrupt();
    const sent = Date.now();
    await until(() => !running(providerPid), 30_000, "the provider process to exit", 50);
    return Date.now() - sent;
  }

  /** The next `pulumi up` completes; afterwards the host holds exactly what the stack records. */
  async function nextUpLeavesNoOrphan(e: E2eStack & { prefix: string }, expected: { volumes: string[]; domains: string[] }): Promise<void> {
    const up = await e.stack.up();
    assert.strictEqual(up.summary.result, "succeeded");
    assert.deepStrictEqual(ours(e.prefix), expected);
    // a Domain's seed volume is its own, recorded in its outputs
    const recorded = (await e.stack.exportStack()).deployment.resources
      .filter((r: { type: string }) => r.type.startsWith("pulumi-nodejs:dynamic/kvm:"))
      .flatMap((r: { outputs: { name: string; seedVolume?: string } }) => [r.outputs.name, r.outputs.seedVolume].filter(Boolean))
      .sort();
    assert.deepStrictEqual(recorded, [...expected.volumes, ...expected.domains].sort(), "every object on the host is in the stack");
    assert.deepStrictEqual(journalled(), [], "nothing is left in the journal");
    // what Pulumi advises after a terminated run: its record of the interrupted creates goes
    await e.stack.refresh({ expectNoChanges: true, clearPendingCreates: true });
  }

  /** Starts `pulumi up` of the big image; resolves once its upload is under way. */
  async function upUntilUploading(e: E2eStack & { prefix: string }): Promise<{ run: PulumiRun; image: string }> {
    const run = runPulumi(e, ["up", "--yes", "--skip-preview"]);
    const image = `${e.prefix}-image`;
    await until(() => allocated(image) > 256 << 20, 120_000, `the upload of ${image} to be under way`);
    return { run, image };
  }

  async function finish(e: E2eStack | undefined): Promise<void> {
    if (!e) return;
    await e.stack.destroy().catch(() => undefined);
    await e.remove();
  }

  it("during a large Image upload: the half-made volume is removed before the engine's kill, and the next up completes", async () => {
    const e = await userStack({ imagePath: bigImage });
    try {
      const { run, image } = await upUntilUploading(e);
      const pid = provider(run);
      const ms = await pressCtrlCTwice(run, pid);
      const { code, output } = await run.exited;
      assert.notStrictEqual(code, 0);
      assert.ok(ms < GRACE_MS, `the provider exited ${ms} ms after the second Ctrl-C, within the engine's ${GRACE_MS} ms`);
      assert.match(output, /SIGINT: stopping 1 create\(s\) or move\(s\) in flight/);
      assert.deepStrictEqual(ours(e.prefix), { volumes: [], domains: [] }, "the half-uploaded image is gone from the host");
      assert.deepStrictEqual(journalled(), [], "removed at once, not left for later");
      await nextUpLeavesNoOrphan(e, { volumes: [`${e.prefix}-disk`, image], domains: [] });
    } finally {
      await finish(e);
    }
  });

  it("when the provider is killed outright mid-upload: the half-made image, proven by the mark at its head, is removed by the next up, which completes", async () => {
    const e = await userStack({ imagePath: bigImage });
    try {
      const { run, image } = await upUntilUploading(e);
      process.kill(provider(run), "SIGKILL");
      await run.exited;
      assert.deepStrictEqual(ours(e.prefix).volumes, [image], "a kill leaves the half-made volume");
      assert.deepStrictEqual(journalled(), [image], "journalled before it was made");
      // its name counts as free: the next operation on the host proves the leftover and removes it
      const preview = await e.stack.preview();
      assert.match(preview.stdout, /create/);
      await nextUpLeavesNoOrphan(e, { volumes: [`${e.prefix}-disk`, image], domains: [] });
    } finally {
      await finish(e);
    }
  });

  it("while a Domain boots and waits for its IP: the VM and its seed are removed, and the next up boots it", async () => {
    const e = await userStack({ domain: "net", hostname: "interrupted" });
    try {
      const run = runPulumi(e, ["up", "--yes", "--skip-preview"]);
      const vm = `${e.prefix}-vm`;
      await until(() => domainNames().includes(vm) && /running/.test(virsh(["domstate", vm])), 180_000, `${vm} to run`, 250);
      const pid = provider(run);
      const ms = await pressCtrlCTwice(run, pid);
      await run.exited;
      assert.ok(ms < GRACE_MS, `the provider exited ${ms} ms after the second Ctrl-C`);
      assert.deepStrictEqual(
        ours(e.prefix),
        { volumes: [`${e.prefix}-disk`, `${e.prefix}-image`], domains: [] },
        "the VM and its seed are gone; the image and disk, made before, are recorded",
      );
      assert.deepStrictEqual(journalled(), []);
      await nextUpLeavesNoOrphan(e, { volumes: [`${e.prefix}-disk`, `${e.prefix}-image`, `${vm}-seed.iso`], domains: [vm] });
    } finally {
      await finish(e);
    }
  });
});
