// Host configurations pointing at the lab.
import * as fs from "fs";
import { HostConfig } from "../../provider/ssh/host";
import { LabEnv } from "./lab";

export function labHost(lab: LabEnv, over: Partial<HostConfig> = {}): HostConfig {
  return {
    address: lab.host,
    port: lab.port,
    user: lab.user,
    privateKeyPath: lab.key,
    knownHostsPath: lab.knownHosts,
    socketPath: lab.socket,
    sshConfigPath: "none",
    ...over,
  };
}

/** "Accepted publickey" lines in an sshd log: one per completed SSH login. */
export function acceptedLogins(logFile: string): number {
  try {
    return (fs.readFileSync(logFile, "utf8").match(/Accepted publickey/g) ?? []).length;
  } catch {
    return 0;
  }
}
