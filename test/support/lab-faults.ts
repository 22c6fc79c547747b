// Faults injected into the lab's own daemons (what a host does to its clients): libvirtd
// restarted, an sshd killed with its sessions and started again.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LabEnv } from "./lab";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Stops the lab's libvirtd (SIGTERM, as a service restart does) and starts it again. */
export async function restartLibvirtd(lab: LabEnv): Promise<void> {
  const pid = Number(fs.readFileSync(lab.libvirtdPid, "utf8").trim());
  process.kill(pid, "SIGTERM");
  for (let i = 0; i < 100 && !gone(pid); i++) await sleep(100);
  execFileSync("ip", ["netns", "exec", lab.netns, "libvirtd", "-d", "-p", lab.libvirtdPid]);
  for (let i = 0; i < 100 && !fs.existsSync(lab.socket); i++) await sleep(100);
  await sleep(1000);
}

/** Kills one of the lab's sshd (`which`: its first or second port) with every session (SIGKILL), then starts it again after `downMs`. */
export async function killSshd(lab: LabEnv, which: 1 | 2, downMs: number): Promise<void> {
  const dir = path.dirname(which === 1 ? lab.sshdLog : lab.sshdLog2);
  const pid = Number(fs.readFileSync(path.join(dir, "sshd.pid"), "utf8").trim());
  try { execFileSync("pkill", ["-KILL", "-P", String(pid)]); } catch { /* no session */ }
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 50 && !gone(pid); i++) await sleep(50);
  fs.rmSync(path.join(dir, "sshd.pid"), { force: true });
  await sleep(downMs);
  execFileSync("/usr/sbin/sshd", ["-f", path.join(dir, "sshd_config"), "-E", path.join(dir, "sshd.log")]);
  for (let i = 0; i < 50 && !fs.existsSync(path.join(dir, "sshd.pid")); i++) await sleep(50);
}
