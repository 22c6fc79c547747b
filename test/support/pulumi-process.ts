// The Pulumi CLI as a terminal runs it, for what the Automation API cannot do: a run
// interrupted with Ctrl-C. The CLI runs in its own process group, as a foreground job
// does; Ctrl-C is SIGINT to that group (Pulumi starts its plugins in groups of their own).
import { spawn } from "child_process";
import * as fs from "fs";
import { E2eStack } from "./pulumi";

export interface PulumiRun {
  pid: number;
  /** Everything the CLI printed so far. */
  output(): string;
  /** Ctrl-C as a terminal sends it (nothing once the run has ended). */
  interrupt(): void;
  exited: Promise<{ code: number | null; output: string }>;
}

export function runPulumi(e: E2eStack, args: string[]): PulumiRun {
  const p = spawn("pulumi", [...args, "--stack", e.stack.name, "--non-interactive"], {
    cwd: e.stack.workspace.workDir,
    env: { ...process.env, ...e.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  p.stdout.on("data", (d) => {
    output += d;
  });
  p.stderr.on("data", (d) => {
    output += d;
  });
  return {
    pid: p.pid!,
    output: () => output,
    interrupt: () => {
      try {
        process.kill(-p.pid!, "SIGINT");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err; // the run had ended
      }
    },
    exited: new Promise((resolve) => p.on("close", (code) => resolve({ code, output }))),
  };
}

/** The processes below `pid` (children, their children, …) with their command lines. */
export function descendants(pid: number): { pid: number; cmd: string }[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  const below = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      try {
        out.push({ pid: child, cmd: fs.readFileSync(`/proc/${child}/cmdline`, "utf8").replace(/\0/g, " ") });
      } catch {
        continue;
      }
      below(child);
    }
  };
  below(pid);
  return out;
}

/** Resolves once `cond` holds, polling; fails after `ms`. */
export async function until(cond: () => boolean, ms: number, what: string, stepMs = 100): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
