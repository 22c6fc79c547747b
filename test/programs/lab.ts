// The lab's settings for the test programs: .lab/env, found from the program's folder
// upwards (programIn puts a copy beside each program), and the lab host as a user writes it.
import * as fs from "fs";
import * as path from "path";
import type { HostArgs } from "pulumi-kvm";

export const lab: Record<string, string> = {};
let dir = __dirname;
while (!fs.existsSync(path.join(dir, ".lab", "env")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
for (const line of fs.readFileSync(path.join(dir, ".lab", "env"), "utf8").split("\n")) {
  const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
  if (m) lab[m[1]] = m[2];
}

export function labHost(login: { port?: string; privateKeyPath?: string } = {}): HostArgs {
  return {
    address: lab.KVM_LAB_HOST,
    port: Number(login.port ?? lab.KVM_LAB_PORT),
    user: lab.KVM_LAB_USER,
    privateKeyPath: login.privateKeyPath ?? lab.KVM_LAB_KEY,
    knownHostsPath: lab.KVM_LAB_KNOWN_HOSTS,
  };
}
