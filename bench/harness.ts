// Shared by every benchmark: timing, peak memory, and the row format of RESULTS.md.
import { execFileSync, spawn } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { performance } from "perf_hooks";
import * as readline from "readline";
import { LabEnv, repoRoot } from "../test/support/lab";
import { e2eStack } from "../test/support/pulumi";
import { tempDir } from "../test/support/tmp";

export interface Row {
  benchmark: string;
  ours: string;
  baseline: string;
  /** baseline time / our time (> 1: we are faster), or another ratio named in `ratioOf`. */
  ratio: number;
  ratioOf: string;
  note?: string;
}

export interface Benchmark {
  name: string;
  run(lab: LabEnv, workdir: string): Promise<Row[]>;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, value };
}

/** Runs fn while sampling this process's RSS; returns the peak growth in MiB. */
export async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakMiB: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const t = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const value = await fn();
    return { value, peakMiB: (peak - base) / (1024 * 1024) };
  } finally {
    clearInterval(t);
  }
}

/** USER_HZ: /proc/stat and /proc/PID/stat count CPU time in 1/100 s on Linux. */
const TICKS_PER_SECOND = 100;

/** Every process's command name and CPU ticks (user + system) now, from /proc. */
function processTicks(): Map<number, { comm: string; ticks: number }> {
  const out = new Map<number, { comm: string; ticks: number }>();
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" "); // from field 3 (state) on: utime and stime are fields 14 and 15
    out.set(Number(pid), { comm: stat.slice(stat.indexOf("(") + 1, close), ticks: Number(fields[11]) + Number(fields[12]) });
  }
  return out;
}

/** CPU seconds (user + system) that every process named `comm` has used so far, from /proc. */
export function processCpuSeconds(comm: string): number {
  let ticks = 0;
  for (const p of processTicks().values()) if (p.comm === comm) ticks += p.ticks;
  return ticks / TICKS_PER_SECOND;
}

/** CPU seconds per process name between two readings (a process new in the second counts from zero). */
function cpuSpent(first: ReturnType<typeof processTicks>, last: ReturnType<typeof processTicks>): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const [pid, p] of last) {
    const before = first.get(pid);
    const spent = p.ticks - (before && before.comm === p.comm ? before.ticks : 0);
    if (spent > 0) cpu.set(p.comm, (cpu.get(p.comm) ?? 0) + spent / TICKS_PER_SECOND);
  }
  return cpu;
}

/**
 * The CPU seconds each process name spent while `fn` ran, processes that started and
 * exited meanwhile included (a provider, an sshd session): /proc is read every 50 ms,
 * so a process is short of at most its last 50 ms.
 */
export async function cpuByProcess<T>(fn: () => Promise<T>): Promise<{ value: T; cpu: Map<string, number> }> {
  const first = processTicks();
  const last = new Map(first);
  const sample = () => {
    for (const [pid, p] of processTicks()) last.set(pid, p);
  };
  const timer = setInterval(sample, 50);
  try {
    const value = await fn();
    sample();
    return { value, cpu: cpuSpent(first, last) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * CPU seconds all cores have spent busy so far (user, nice, system, irq, softirq, steal),
 * from /proc/stat: unlike /proc/PID it still counts processes that have exited meanwhile.
 */
export function machineCpuSeconds(): number {
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

/** `fn`'s seconds, and the CPU seconds the processes named `comm` (or, with no name, the whole machine) used meanwhile. */
export async function timedWithCpu(comm: string | undefined, fn: () => Promise<unknown>): Promise<{ seconds: number; cpu: number }> {
  const cpuNow = () => (comm ? processCpuSeconds(comm) : machineCpuSeconds());
  const before = cpuNow();
  const { seconds } = await timed(fn);
  return { seconds, cpu: cpuNow() - before };
}

/** The fastest of `n` runs with its CPU seconds (see timedWithCpu). */
export async function bestOfWithCpu(n: number, comm: string | undefined, fn: () => Promise<unknown>): Promise<{ seconds: number; cpu: number }> {
  let best = { seconds: Infinity, cpu: 0 };
  for (let i = 0; i < n; i++) {
    const r = await timedWithCpu(comm, fn);
    if (r.seconds < best.seconds) best = r;
  }
  return best;
}

/** Runs a command; `input` is a file given as its stdin directly (as `cmd < file` would), not piped through this process. */
export function run(cmd: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const stdin = opts.input ? fs.openSync(opts.input, "r") : "ignore";
    const p = spawn(cmd, args, { stdio: [stdin, "ignore", "pipe"], env: { ...process.env, ...opts.env } });
    if (typeof stdin === "number") fs.closeSync(stdin);
    let err = "";
    p.stderr?.on("data", (d) => {
      err += d;
    });
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

/** An ssh wrapper that verifies the lab's host key, for virsh's qemu+ssh transport. */
export function sshWrapper(lab: LabEnv, dir: string): string {
  const file = path.join(dir, "ssh-lab");
  fs.writeFileSync(file, `#!/bin/sh\nexec ssh -o UserKnownHostsFile=${lab.knownHosts} -o StrictHostKeyChecking=yes -o BatchMode=yes "$@"\n`, { mode: 0o755 });
  return file;
}

export function virshSshUri(lab: LabEnv, dir: string): string {
  const q = new URLSearchParams({ keyfile: lab.key, command: sshWrapper(lab, dir) });
  return `qemu+ssh://${lab.user}@${lab.host}:${lab.port}/system?${q.toString()}`;
}

export function virshLocal(args: string[]): string {
  return execFileSync("virsh", ["-q", "-c", "qemu:///system", ...args], { encoding: "utf8" }).trim();
}

export function sshArgs(lab: LabEnv): string[] {
  return [
    "-i",
    lab.key,
    "-p",
    String(lab.port),
    "-o",
    `UserKnownHostsFile=${lab.knownHosts}`,
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    "BatchMode=yes",
    `${lab.user}@${lab.host}`,
  ];
}

export function fmtSeconds(s: number): string {
  return `${s.toFixed(2)} s`;
}

export function tmpdir(): string {
  return tempDir("bench-");
}

/** A file of `mib` MiB of random bytes. */
export function randomFile(file: string, mib: number): string {
  const fd = fs.openSync(file, "w");
  for (let done = 0; done < mib; done += 16) fs.writeSync(fd, crypto.randomBytes(Math.min(16, mib - done) * 1024 * 1024));
  fs.closeSync(fd);
  return file;
}

let imageRuns = 0;

/** `imageStep`'s seconds alone. */
export const imageStepSeconds = async (...args: Parameters<typeof imageStep>) => (await imageStep(...args)).seconds;

/** One engine event as `--event-log` writes it, stamped with when it arrived here. */
interface StampedEvent {
  at: number;
  event: { resourcePreEvent?: { metadata: { urn: string; op: string } }; resOutputsEvent?: { metadata: { urn: string; op: string } } };
}

/**
 * `pulumi up` of bench/programs/image (one Image from `source`: a path or a URL) through
 * the real CLI, in a fresh stack destroyed after. What the user waits for is the Image's
 * step as the engine sees it: from its resourcePreEvent (the step starts; check is done)
 * to its resOutputsEvent (the create returned, its outputs recorded). The engine writes
 * each event to `--event-log` as it happens; the log is a FIFO read here, each line
 * stamped as it arrives (the engine's own stamps are whole seconds).
 */
export async function imageStep(
  lab: LabEnv,
  source: { path: string } | { url: string; sha256?: string },
  opts: { port?: number; afterUp?: (volume: string) => void } = {},
): Promise<{ seconds: number; cpu: Map<string, number> }> {
  const name = `bench-img-${process.pid}-${++imageRuns}`;
  const program = path.join(repoRoot, "bench", "programs", "image");
  const e = await e2eStack(program, name, {
    name,
    address: lab.host,
    port: String(opts.port ?? lab.port),
    user: lab.user,
    key: lab.key,
    knownHosts: lab.knownHosts,
    ...("path" in source ? { path: source.path } : { url: source.url, ...(source.sha256 ? { sha256: source.sha256 } : {}) }),
  });
  const fifo = path.join(tempDir("bench-events-"), "events.fifo");
  execFileSync("mkfifo", [fifo]);
  try {
    const events: StampedEvent[] = [];
    const isImageCreate = (kind: "resourcePreEvent" | "resOutputsEvent", x: StampedEvent["event"]) =>
      x[kind]?.metadata.op === "create" && x[kind].metadata.urn.endsWith(`kvm:Image::${name}`);
    // the processes' CPU ticks as the step starts and as it ends
    const ticks: ReturnType<typeof processTicks>[] = [];
    const reading = new Promise<void>((resolve, reject) => {
      const lines = readline.createInterface({ input: fs.createReadStream(fifo) });
      lines.on("line", (line) => {
        const event = JSON.parse(line) as StampedEvent["event"];
        events.push({ at: performance.now(), event });
        if (isImageCreate("resourcePreEvent", event) || isImageCreate("resOutputsEvent", event)) ticks.push(processTicks());
      });
      lines.on("close", resolve);
      lines.on("error", reject);
    });
    await run("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", name, "--cwd", program, "--event-log", fifo], {
      // --event-log is one of the CLI's debug flags, as the Automation API uses it
      env: { ...e.env, PULUMI_DEBUG_COMMANDS: "true" },
    });
    await reading;
    const at = (kind: "resourcePreEvent" | "resOutputsEvent") => events.find((x) => isImageCreate(kind, x.event))?.at;
    const [start, end] = [at("resourcePreEvent"), at("resOutputsEvent")];
    if (start === undefined || end === undefined) throw new Error(`pulumi up of ${name}: no create step of the Image in its event log`);
    opts.afterUp?.(name);
    return { seconds: (end - start) / 1000, cpu: cpuSpent(ticks[0], ticks[1]) };
  } finally {
    fs.rmSync(path.dirname(fifo), { recursive: true, force: true });
    await e.stack.destroy();
    await e.remove();
  }
}

/** Serves `file` over http from a child process (bench/serve-file.ts); the URL, and how to stop it. */
export async function serveInChild(file: string): Promise<{ url: string; close(): void }> {
  const child = spawn(process.execPath, [path.join(__dirname, "serve-file.js"), file], { stdio: ["ignore", "pipe", "inherit"] });
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(String(d).trim()));
    child.once("exit", (code) => reject(new Error(`serve-file exited ${code}`)));
  });
  return { url: `${base}${path.basename(file)}`, close: () => child.kill() };
}

/** Several runs of one measure: their median and spread. */
export interface Runs {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function runsOf(values: number[]): Runs {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

/** "3.61 s (3.52–3.80, 5 runs)" */
export const fmtRuns = (r: Runs) => `${fmtSeconds(r.median)} (${r.min.toFixed(2)}–${r.max.toFixed(2)}, ${r.n} runs)`;

/**
 * `rounds` rounds of every measure in `measures`, taking turns within each round, so a slow
 * spell of the machine falls on all of them alike; each measure's runs as median and spread.
 */
export async function interleaved<K extends string>(rounds: number, measures: Record<K, () => Promise<number>>): Promise<Record<K, Runs>> {
  const seen = Object.fromEntries(Object.keys(measures).map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < rounds; i++) for (const k of Object.keys(measures) as K[]) seen[k].push(await measures[k]());
  return Object.fromEntries(Object.entries<number[]>(seen).map(([k, v]) => [k, runsOf(v)])) as Record<K, Runs>;
}

/** The fastest of `n` runs: this lab shares 2 cores with sshd and libvirtd, so one run can be a slow one. */
export async function bestOf(n: number, fn: () => Promise<number>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < n; i++) best = Math.min(best, await fn());
  return best;
}

/** The heading of RESULTS.md's chaos section: `npm run bench` keeps it, `npm run chaos` replaces it. */
const CHAOS_HEADING = "## Chaos run";
const resultsFile = path.join(repoRoot, "bench", "RESULTS.md");

/** Writes one part of bench/RESULTS.md (the benchmark table, or the chaos run), keeping the other. */
export function writeResults(part: "benchmarks" | "chaos", lines: string[]): string {
  const now = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, "utf8") : "";
  const at = now.indexOf(CHAOS_HEADING);
  const benchmarks = at < 0 ? now : now.slice(0, at);
  const chaos = at < 0 ? "" : now.slice(at);
  const text =
    part === "benchmarks"
      ? [lines.join("\n").trimEnd(), chaos.trimEnd()].filter(Boolean).join("\n\n")
      : [benchmarks.trimEnd(), [CHAOS_HEADING, "", ...lines].join("\n").trimEnd()].filter(Boolean).join("\n\n");
  fs.writeFileSync(resultsFile, text + "\n");
  return resultsFile;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The functions a V8 CPU profile (`node --cpu-prof`) found running during `window` (µs,
 * the profile's clock), by their own time, largest first: "writev 24 %"; idle excluded
 * from the shares, and reported as the thread's idle share.
 */
export function profileTop(file: string, window: { start: number; end: number }, n: number): { busyShare: number; top: { name: string; share: number }[] } {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let t = p.startTime;
  let total = 0;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i];
    if (t < window.start || t > window.end) return;
    const { functionName, url } = byId.get(id)!.callFrame;
    const name = `${functionName || "(anonymous)"}${url ? ` (${url.split("/").slice(-2).join("/")})` : ""}`;
    self.set(name, (self.get(name) ?? 0) + p.timeDeltas[i]);
    total += p.timeDeltas[i];
  });
  const idle = self.get("(idle)") ?? 0;
  self.delete("(idle)");
  const busy = total - idle;
  const top = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, share: us / busy }));
  return { busyShare: busy / total, top };
}
