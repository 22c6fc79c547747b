// What each test file costs, for npm test's closing lines (suite.ts): its wall time and the
// CPU its worker spent on it, its own and its reaped children's (the pulumi CLI, language
// hosts and providers it ran; qemu and the lab's daemons are not its children). Root hooks
// run once per file in mocha's parallel workers; each file appends one line to
// KVM_TEST_COSTS.
import * as fs from "fs";
import * as path from "path";

/** This process's and its reaped children's CPU seconds (/proc/self/stat utime, stime, cutime, cstime). */
function cpuSeconds(): { own: number; children: number } {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  const ticks = (i: number) => Number(fields[i - 3]) / 100;
  return { own: ticks(14) + ticks(15), children: ticks(16) + ticks(17) };
}

let start: { at: number; own: number; children: number } | undefined;

export const mochaHooks = {
  beforeAll(): void {
    start = { at: Date.now(), ...cpuSeconds() };
  },
  afterAll(this: Mocha.Context): void {
    const out = process.env.KVM_TEST_COSTS;
    // one file per root in a parallel worker; every file of a serial run under one root
    const files = (this.test?.parent?.suites ?? []).map((s) => s.file).filter((f): f is string => !!f);
    if (!out || !start || !files.length) return;
    const now = cpuSeconds();
    const line = {
      file: [...new Set(files.map((f) => `${path.basename(path.dirname(f))}/${path.basename(f)}`))].join(" + "),
      wall: (Date.now() - start.at) / 1000,
      own: now.own - start.own,
      children: now.children - start.children,
    };
    fs.appendFileSync(out, JSON.stringify(line) + "\n");
  },
};
