// The chaos run: cycles of `pulumi up` → update → `pulumi destroy` of a small fleet
// (test/programs/chaos) on the lab's two sshd, each behind a test proxy, through the real
// CLI, while an injector, at a random moment of a stage, restarts libvirtd, kills one
// sshd, blackholes one link or presses Ctrl-C twice. A stage that fails is run again
// (without faults) until it succeeds. After each stage: nothing on the host the stack
// does not know, nothing the stack knows missing, `pulumi refresh --expect-no-changes`
// holds, and every error the run printed was classified and clear. Bounded by a cycle
// count and a time limit; loopback and the lab's namespace only.
import * as fs from "fs";
import * as path from "path";
import { e2eStack, E2eStack } from "./pulumi";
import { PulumiRun, runPulumi } from "./pulumi-process";
import { LabEnv } from "./lab";
import { killSshd, restartLibvirtd } from "./lab-faults";
import { legProject, programFiles, programIn, testLegs, programEnv } from "./package";
import { knownHostsFor } from "./sshd";
import { TcpProxy } from "./tcp-proxy";
import { domainNames, volumeNames } from "./virsh";
import { tempDir } from "./tmp";

export const FAULTS = ["libvirtd restarted", "sshd killed", "link blackholed", "CLI interrupted"] as const;
export type Fault = (typeof FAULTS)[number];

export interface ChaosOptions {
  cycles: number;
  /** The run stops starting cycles after this long. */
  maxMs: number;
  perHost?: number;
  /** Every faulty attempt meets a fault (a short run that must see each kind); else 4 in 5 do. */
  alwaysInject?: boolean;
  /** How many attempts of a stage may meet a fault (default 1: the repeats run clean). */
  faultyAttempts?: number;
  /** Further cycles (at most this many) while a kind of fault has not come up yet: a fault that fired after its stage ended, or on an attempt that succeeded anyway, leaves a kind out of a short run. */
  extraCyclesForEveryKind?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  seed: number;
  cycles: number;
  ms: number;
  faults: Record<Fault, number>;
  /** CLI runs (up, update, destroy, and their repeats), and those that failed. */
  operations: number;
  failed: number;
  /** Error lines that named no host and were no consequence of an interrupt. */
  unclear: string[];
  /** Objects on the host the stack did not know / objects the stack knew that were gone, per check. */
  leaked: string[];
  lost: string[];
  /** Refreshes that found a difference. */
  drifted: number;
}

/** A small deterministic PRNG (mulberry32): a run is repeatable from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Pulumi's own summary lines, and what the engine and the program's gRPC say when a run is
 * terminated under them (grpc-js: "Channel has been shut down" once the engine closed it).
 */
const PULUMI_SUMMARY = /^(update|destroy|preview) (failed|canceled|cancelled)$/;
const AFTER_INTERRUPT =
  /interrupted \(SIG(INT|TERM)\)|cancel|transport is closing|Channel has been shut down|error reading from server|connection refused|EOF|unknown state/i;

/** The errors of a run's Diagnostics: one per "error:" line, or per bullet of "N errors occurred:". */
function errorMessages(output: string): string[] {
  const at = output.lastIndexOf("Diagnostics:");
  const lines = (at < 0 ? output : output.slice(at)).split("\n").map((l) => l.trim());
  const out: string[] = [];
  lines.forEach((l, i) => {
    const m = /\berror: (.*)$/.exec(l);
    if (!m) return;
    if (!/^\d+ errors? occurred:$/.test(m[1].trim())) return void out.push(m[1].trim());
    for (let j = i + 1; j < lines.length && lines[j].startsWith("* "); j++) out.push(lines[j].slice(2).trim());
  });
  return out;
}

/** The errors of a run that are not classified and clear. */
export function unclearErrors(output: string, interrupted: boolean, hostLabel = /root@127\.0\.0\.1:\d+/): string[] {
  return errorMessages(output).filter((msg) => !(PULUMI_SUMMARY.test(msg) || hostLabel.test(msg) || (interrupted && AFTER_INTERRUPT.test(msg))));
}

export async function runChaos(lab: LabEnv, opts: ChaosOptions): Promise<ChaosFigures> {
  const seed = opts.seed ?? Date.now() % 2 ** 31;
  const rnd = random(seed);
  /** What the run logged so far: an attempt's failure that ends the run carries it. */
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    opts.log?.(line);
  };
  const started = Date.now();
  const figures: ChaosFigures = {
    seed,
    cycles: 0,
    ms: 0,
    faults: Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>,
    operations: 0,
    failed: 0,
    unclear: [],
    leaked: [],
    lost: [],
    drifted: 0,
  };
  const work = tempDir("chaos-");
  const proxies = [await TcpProxy.start(lab.port), await TcpProxy.start(lab.port2)];
  const leg = testLegs()[0];
  const prefix = `ch${process.pid}`;
  const dir = programIn(legProject(leg), "chaos", programFiles("chaos"));
  const e: E2eStack = await e2eStack(
    dir,
    prefix,
    {
      prefix,
      portA: String(proxies[0].port),
      portB: String(proxies[1].port),
      perHost: String(opts.perHost ?? 2),
      knownHosts: knownHostsFor(
        lab,
        proxies.map((p) => p.port),
        work,
      ),
    },
    { ...programEnv(legProject(leg)), PULUMI_KVM_JOURNAL: path.join(work, "leftovers.json") },
  );
  // every kind comes up in turn, in an order the seed shuffles
  const deck: Fault[] = [];
  const nextFault = (): Fault => {
    if (!deck.length) deck.push(...[...FAULTS].sort(() => rnd() - 0.5));
    return deck.pop()!;
  };
  /** How long into a stage a fault may come: what the stage took the last time it ran (at first a guess). */
  const window: Record<string, number> = { up: 25_000, update: 15_000, destroy: 5_000 };

  async function inject(fault: Fault, run: PulumiRun): Promise<void> {
    figures.faults[fault]++;
    log(`  inject: ${fault}`);
    switch (fault) {
      case "libvirtd restarted":
        return restartLibvirtd(lab);
      case "sshd killed":
        return killSshd(lab, rnd() < 0.5 ? 1 : 2, 1000 + rnd() * 2000);
      case "link blackholed": {
        const proxy = proxies[rnd() < 0.5 ? 0 : 1];
        proxy.mode = "blackhole";
        await sleep(3000 + rnd() * 9000);
        proxy.mode = "pass";
        proxy.reset();
        return;
      }
      case "CLI interrupted":
        run.interrupt();
        await sleep(1000);
        run.interrupt();
    }
  }

  /** Runs `args` until it succeeds; the first attempt may meet a fault. */
  async function stage(name: string, args: string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      figures.operations++;
      const startedAt = Date.now();
      const run = runPulumi(e, args);
      let fault: Fault | undefined;
      let injecting: Promise<void> | undefined;
      let finished = false;
      const exited = run.exited.then((r) => {
        finished = true;
        return r;
      });
      if (attempt <= (opts.faultyAttempts ?? 1) && (opts.alwaysInject || rnd() < 0.8)) {
        // the kind is drawn when it fires: one that missed its stage comes up next time
        injecting = sleep(1000 + rnd() * window[name]).then(() => (finished ? undefined : inject((fault = nextFault()), run)));
      }
      const { code, output } = await exited;
      await injecting;
      const unclear = unclearErrors(output, fault === "CLI interrupted");
      figures.unclear.push(...unclear.map((u) => `${name}: ${u}`));
      if (code === 0) {
        // a fault drawn past a stage's end is lost: the next one comes within what this one took
        if (!fault) window[name] = Math.max(1_000, Date.now() - startedAt - 1_500);
        return;
      }
      figures.failed++;
      log(`  ${name} failed (attempt ${attempt}${fault ? `, ${fault}` : ""})${unclear.length ? `; unclear: ${unclear.join(" | ")}` : ""}`);
      for (const m of errorMessages(output)) log(`    error: ${m}`);
      if (attempt >= 5) {
        const journal = path.join(work, "leftovers.json");
        const journalled = fs.existsSync(journal) ? fs.readFileSync(journal, "utf8") : "(none)";
        throw new Error(`${name} did not succeed in 5 attempts (seed ${seed}):\n${lines.join("\n")}\njournal: ${journalled}\n${output.slice(-4000)}`);
      }
      await sleep(2000);
    }
  }

  const ours = () => [
    ...volumeNames(lab)
      .filter((v) => v.startsWith(`${prefix}-`))
      .map((v) => `volume ${v}`),
    ...domainNames()
      .filter((d) => d.startsWith(`${prefix}-`))
      .map((d) => `domain ${d}`),
  ];
  /** The objects the stack records: volumes and domains by name, with each domain's seed. */
  async function recorded(): Promise<string[]> {
    const resources = (await e.stack.exportStack()).deployment.resources ?? [];
    return resources
      .filter((r: { type: string }) => r.type.startsWith("pulumi-nodejs:dynamic/kvm:"))
      .flatMap((r: { type: string; outputs: { name: string; seedVolume?: string } }) =>
        r.type.endsWith(":Domain")
          ? [`domain ${r.outputs.name}`, ...(r.outputs.seedVolume ? [`volume ${r.outputs.seedVolume}`] : [])]
          : [`volume ${r.outputs.name}`],
      );
  }
  async function audit(when: string): Promise<void> {
    try {
      await e.stack.refresh({ expectNoChanges: true, clearPendingCreates: true });
    } catch (err) {
      figures.drifted++;
      log(`  ${when}: refresh found changes: ${String(err).slice(-500)}`);
    }
    const onHost = new Set(ours());
    const known = new Set(await recorded());
    const leaked = [...onHost].filter((o) => !known.has(o));
    const lost = [...known].filter((o) => !onHost.has(o));
    figures.leaked.push(...leaked.map((o) => `${when}: ${o}`));
    figures.lost.push(...lost.map((o) => `${when}: ${o}`));
    if (leaked.length || lost.length) log(`  ${when}: leaked ${leaked.join(", ") || "none"}; lost ${lost.join(", ") || "none"}`);
  }

  try {
    const kindMissing = () => FAULTS.some((f) => figures.faults[f] === 0);
    const wanted = (cycle: number) => cycle <= opts.cycles || (kindMissing() && cycle <= opts.cycles + (opts.extraCyclesForEveryKind ?? 0));
    for (let cycle = 1; wanted(cycle) && Date.now() - started < opts.maxMs; cycle++) {
      log(`cycle ${cycle}`);
      await e.stack.setConfig("grown", { value: "false" });
      await stage("up", ["up", "--yes", "--skip-preview"]);
      await audit(`cycle ${cycle} after up`);
      await e.stack.setConfig("grown", { value: "true" });
      await stage("update", ["up", "--yes", "--skip-preview"]);
      await audit(`cycle ${cycle} after update`);
      await stage("destroy", ["destroy", "--yes", "--skip-preview"]);
      await audit(`cycle ${cycle} after destroy`);
      figures.cycles = cycle;
    }
  } finally {
    for (const p of proxies) p.mode = "pass";
    await e.stack.destroy().catch(() => undefined);
    await e.remove();
    for (const p of proxies) await p.close();
    fs.rmSync(work, { recursive: true, force: true });
    figures.ms = Date.now() - started;
  }
  return figures;
}
