// Faults injected into the lab's own daemons (what a host does to its clients): libvirtd
// restarted, an sshd killed with its sessions and started again.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LabEnv } from "./lab";
import { pidFromFile, stopProcess } from "./pids";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stops the lab's libvirtd (SIGTERM, as a service restart does) and starts it again. */
export async function restartLibvirtd(lab: LabEnv): Promise<void> {
  await stopProcess(await pidFromFile(lab.libvirtdPid), "SIGTERM");
  execFileSync("ip", ["netns", "exec", lab.netns, "libvirtd", "-d", "-p", lab.libvirtdPid]);
  for (let i = 0; i < 100 && !fs.existsSync(lab.socket); i++) await sleep(100);
  await sleep(1000);
}

/** Kills one of the lab's sshd (`which`: its first or second port) with every session (SIGKILL), then starts it again after `downMs`. */
export async function killSshd(lab: LabEnv, which: 1 | 2, downMs: number): Promise<void> {
  const dir = path.dirname(which === 1 ? lab.sshdLog : lab.sshdLog2);
  const pid = await pidFromFile(path.join(dir, "sshd.pid"));
  try {
    execFileSync("pkill", ["-KILL", "-P", String(pid)]);
  } catch {
    /* no session */
  }
  await stopProcess(pid, "SIGKILL");
  fs.rmSync(path.join(dir, "sshd.pid"), { force: true });
  await sleep(downMs);
  execFileSync("/usr/sbin/sshd", ["-f", path.join(dir, "sshd_config"), "-E", path.join(dir, "sshd.log")]);
  await pidFromFile(path.join(dir, "sshd.pid"));
}
