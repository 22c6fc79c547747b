// Process ids read from daemons' pid files and signalled. A daemon writes its pid file
// after it forks, so a file that exists can still be empty: Number("") is 0, and
// process.kill(0, …) signals the whole process group — the test runner included.
import * as fs from "fs";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid in `file` once the daemon has written it; fails after `ms`. */
export async function pidFromFile(file: string, ms = 5_000): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : "";
    if (/^[1-9]\d*$/.test(text)) return Number(text);
    if (Date.now() > deadline) throw new Error(`${file} holds no pid after ${ms} ms (${JSON.stringify(text)})`);
    await sleep(50);
  }
}

/** Sends `signal` to one process (never a group: pid must be above 1) and waits until it has exited. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, ms = 10_000): Promise<void> {
  if (!(Number.isInteger(pid) && pid > 1)) throw new Error(`refusing to signal pid ${pid}`);
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  for (const deadline = Date.now() + ms; running(pid) && Date.now() < deadline;) await sleep(50);
}
