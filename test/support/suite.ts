// `npm test`: the whole suite in two phases. The files that only add objects of their own to
// the lab (named after their process) run in parallel; then, alone, those that take the lab's
// daemons down or count the logins its sshd sees. The lab's inventory is taken before the
// first phase and after the last, and the run fails naming anything left; the package is
// packed once for every e2e worker. One closing line sums both phases for CI.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { inventory, leftBehind } from "./leaks";
import { packedTarball } from "./package";
import { repoRoot } from "./lab";
import { tempDir } from "./tmp";

/** Files that must have the lab to themselves (paths under dist/test). */
const ALONE = [
  "reliability/chaos.test.js", // restarts libvirtd, kills sshd
  "reliability/daemon-faults.test.js", // the same, one fault at a time
  "integration/pool.test.js", // counts the logins the lab's sshd sees
];

/** The slowest files, slowest first (each alone, 2026-12-07: 432, 355, 208, 140, 132, 110, 86 s), so that the parallel phase ends together. */
const SLOWEST_FIRST = [
  "e2e/cloud-image.test.js",
  "e2e/user-paths.test.js",
  "e2e/import.test.js",
  "e2e/package.test.js",
  "integration/domain.test.js",
  // holds hypervisor B (holdB) for 2 min: started early, it is done when integration/migration asks
  "e2e/migrate.test.js",
  "e2e/languages.test.js",
  "e2e/interrupt.test.js",
];

function testFiles(): string[] {
  const dist = path.join(repoRoot, "dist", "test");
  const all = ["unit", "integration", "reliability", "e2e"].flatMap((dir) =>
    fs
      .readdirSync(path.join(dist, dir))
      .filter((f) => f.endsWith(".test.js"))
      .map((f) => `${dir}/${f}`),
  );
  const rank = (f: string) => (SLOWEST_FIRST.includes(f) ? SLOWEST_FIRST.indexOf(f) : f.startsWith("e2e/") ? SLOWEST_FIRST.length : SLOWEST_FIRST.length + 1);
  return all.sort((a, b) => rank(a) - rank(b));
}

interface Stats {
  passes: number;
  failures: number;
  pending: number;
}

function mocha(files: string[], parallel: boolean, statsFile: string): number {
  const args = [
    path.join(repoRoot, "node_modules", "mocha", "bin", "mocha.js"),
    "--no-config",
    "--timeout",
    "120000",
    "--exit",
    "--forbid-only",
    "--require",
    path.join(repoRoot, "dist", "test", "support", "file-cost.js"),
    "--reporter",
    path.join(repoRoot, "dist", "test", "support", "reporter.js"),
    ...(parallel ? ["--parallel", "--jobs", String(Number(process.env.KVM_TEST_JOBS ?? 3))] : []),
    ...files.map((f) => path.join(repoRoot, "dist", "test", f)),
  ];
  const r = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, KVM_TEST_STATS: statsFile, KVM_TEST_COSTS: costsFile(statsFile) } });
  return r.status ?? 1;
}

/** Where each file's wall time and CPU go (file-cost.ts), beside the counts. */
const costsFile = (statsFile: string) => path.join(path.dirname(statsFile), "costs.jsonl");

/** The files that took longest, and the CPU they spent: what to look at when the suite grows. */
function printCosts(statsFile: string): void {
  const file = costsFile(statsFile);
  if (!fs.existsSync(file)) return;
  const costs = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { file: string; wall: number; own: number; children: number });
  const cpu = costs.reduce((sum, c) => sum + c.own + c.children, 0);
  console.log(`suite: the test files' own and children's CPU ${(cpu / 60).toFixed(1)} min (qemu and the lab's daemons apart); the longest files:`);
  for (const c of costs.sort((a, b) => b.wall - a.wall).slice(0, 12)) {
    console.log(`  ${c.file.padEnd(40)} ${c.wall.toFixed(0).padStart(5)} s, CPU ${c.own.toFixed(0)} s own + ${c.children.toFixed(0)} s children`);
  }
}

function main(): number {
  const before = inventory();
  process.env.KVM_TEST_TARBALL = packedTarball();
  const files = testFiles();
  const statsFile = path.join(tempDir("kvm-suite-"), "stats.jsonl");
  const started = Date.now();
  const codes = [
    mocha(
      files.filter((f) => !ALONE.includes(f)),
      true,
      statsFile,
    ),
    mocha(ALONE, false, statsFile),
  ];
  const total: Stats = { passes: 0, failures: 0, pending: 0 };
  const lines = fs.existsSync(statsFile) ? fs.readFileSync(statsFile, "utf8").split("\n").filter(Boolean) : [];
  for (const line of lines) {
    const s = JSON.parse(line) as Stats;
    total.passes += s.passes;
    total.failures += s.failures;
    total.pending += s.pending;
  }
  const left = before && leftBehind(before);
  if (left?.length) {
    console.error(`the tests left ${left.length} object(s) on the lab: ${left.join(", ")}`);
    total.failures += 1;
  }
  // a phase that crashed before its reporter's end counts as a failure too
  if (lines.length < codes.length || codes.some((c) => c !== 0)) total.failures = Math.max(total.failures, 1);
  printCosts(statsFile);
  console.log(`suite: ${((Date.now() - started) / 60_000).toFixed(1)} min on ${os.cpus().length} cores`);
  console.log(`tests: ${total.passes} passed, ${total.failures} failed, ${total.pending} skipped`);
  return total.failures ? 1 : 0;
}

process.exitCode = main();
