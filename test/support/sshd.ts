// Extra sshd instances for tests that need a host configured differently from the
// lab's (forwarding disabled, …): same host key and authorized keys as the lab.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import { LabEnv } from "./lab";
import { pidFromFile, stopProcess } from "./pids";
import { tempDir } from "./tmp";

export interface TestSshd {
  port: number;
  /** Its log (-E): one "Accepted publickey" line per login. */
  log: string;
  /** Stops this sshd and waits until it has exited. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Starts sshd from the lab's config with `overrides` (sshd_config lines) applied. */
export async function startSshd(lab: LabEnv, overrides: Record<string, string>): Promise<TestSshd> {
  const port = await freePort();
  const dir = tempDir("sshd-");
  const base = fs
    .readFileSync(lab.sshdConfig, "utf8")
    .split("\n")
    .filter((l) => l.trim() && !/^(Port|PidFile)\s/.test(l) && !Object.keys(overrides).some((k) => l.startsWith(k + " ")));
  const pidFile = path.join(dir, "sshd.pid");
  const lines = [`Port ${port}`, `PidFile ${pidFile}`, ...base, ...Object.entries(overrides).map(([k, v]) => `${k} ${v}`)];
  fs.writeFileSync(path.join(dir, "sshd_config"), lines.join("\n") + "\n");
  const log = path.join(dir, "sshd.log");
  execFileSync("/usr/sbin/sshd", ["-f", path.join(dir, "sshd_config"), "-E", log]);
  const pid = await pidFromFile(pidFile);
  return {
    port,
    log,
    stop: async () => {
      await stopProcess(pid, "SIGTERM");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A known_hosts file holding the lab's host key for the given ports. */
export function knownHostsFor(lab: LabEnv, ports: number[], dir: string): string {
  const key = fs.readFileSync(lab.knownHosts, "utf8").split("\n")[0].split(" ").slice(1, 3).join(" ");
  const file = path.join(dir, `known_hosts-${ports.join("-")}`);
  fs.writeFileSync(file, ports.map((p) => `[127.0.0.1]:${p} ${key}`).join("\n") + "\n");
  return file;
}
