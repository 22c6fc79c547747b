// Runs the built `pulumi-kvm` command as a user would.
import { spawn } from "child_process";
import * as path from "path";
import { repoRoot } from "./lab";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export const cliPath = path.join(repoRoot, "dist", "cli", "main.js");

/** Runs the repo's build, or with `installed` a package's installed command under its node. */
export function runCli(
  args: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    killAfterMs?: number;
    untilStdout?: RegExp;
    installed?: { node: string; cli: string };
    /** Called with all of stderr so far, each time more comes. */
    onStderr?: (stderr: string) => void;
    /** Stopped (SIGTERM) when this settles. */
    until?: Promise<unknown>;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const p = spawn(opts.installed?.node ?? process.execPath, [opts.installed?.cli ?? cliPath, ...args], { env: { ...process.env, ...opts.env } });
    let stdout = "";
    let stderr = "";
    // one SIGTERM, as one Ctrl-C: a second one while the command winds down would kill it outright
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      p.kill("SIGTERM");
    };
    const timer = opts.killAfterMs ? setTimeout(stop, opts.killAfterMs) : undefined;
    void opts.until?.finally(stop);
    p.stdout.on("data", (d) => {
      stdout += d;
      if (opts.untilStdout?.test(stdout)) stop();
    });
    p.stderr.on("data", (d) => {
      stderr += d;
      opts.onStderr?.(stderr);
    });
    p.on("exit", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}
