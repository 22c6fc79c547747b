// The system's own libvirt client, used by tests as an independent witness of what is
// on the host (and by the lab test before the project's client existed).
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { create as xml } from "xmlbuilder2";
import { LabEnv } from "./lab";
import { tempDir } from "./tmp";

/** virsh through the lab's sshd (libssh transport: the lab key and known_hosts, verified). */
export function sshUri(lab: LabEnv, knownHosts = lab.knownHosts): string {
  const q = new URLSearchParams({ keyfile: lab.key, known_hosts: knownHosts, known_hosts_verify: "normal", sshauth: "privkey" });
  return `qemu+libssh://${lab.user}@${lab.host}:${lab.port}/system?${q.toString()}`;
}

/**
 * virsh, as an admin runs it. A pool busy with another client's upload or download refuses a
 * refresh ("has asynchronous jobs running"), as it does an admin's: that is waited out (2 min),
 * since files running in parallel upload into the lab's pool at any time.
 */
export function virsh(args: string[], uri = "qemu:///system"): string {
  for (const until = Date.now() + 120_000; ;) {
    try {
      return execFileSync("virsh", ["-q", "-c", uri, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    } catch (err) {
      if (!/asynchronous jobs running/.test(String((err as { stderr?: string }).stderr)) || Date.now() > until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
}

/** Removes a network as an admin would: stopped first when it runs (undefining a running one leaves it transient). */
export function removeNetwork(name: string): void {
  if (/^Active:\s+yes/m.test(virsh(["net-info", name]))) virsh(["net-destroy", name]);
  virsh(["net-undefine", name]);
}

export function volumeNames(lab: LabEnv): string[] {
  virsh(["pool-refresh", lab.pool]);
  return virsh(["vol-list", lab.pool])
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[0])
    .filter(Boolean)
    .sort();
}

/**
 * The names of this process's objects. Every test names what it makes after its process
 * (`…${process.pid}…`), so a file comparing the lab before and after with others running
 * beside it (npm test runs files in parallel) compares its own; the suite checks the whole lab.
 */
export function mine(names: string[]): string[] {
  const pid = new RegExp(`(^|\\D)${process.pid}(\\D|$)`);
  return names.filter((n) => pid.test(n));
}

export function filterNames(): string[] {
  return virsh(["nwfilter-list"])
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[1])
    .filter(Boolean)
    .sort();
}

/** The domains of the lab's libvirtd, or of the one at `uri` (hypervisor B's). */
export function domainNames(uri?: string): string[] {
  return virsh(["list", "--all", "--name"], uri)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

export function leases(network: string): { expiry: string; mac: string; ip: string; hostname: string }[] {
  return virsh(["net-dhcp-leases", network])
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 6)
    .map((f) => ({ expiry: `${f[0]} ${f[1]}`, mac: f[2], ip: f[4].split("/")[0], hostname: f[5] }));
}

export function poolNames(): string[] {
  return virsh(["pool-list", "--all", "--name"])
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

export function networkNames(): string[] {
  return virsh(["net-list", "--all", "--name"])
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

/** Runs `fn` with a domain of that name defined by hand (virsh, no pulumi-kvm marker): someone else's. */
export async function withForeignDomain(name: string, fn: (uuid: string) => Promise<void>): Promise<void> {
  const dir = tempDir("foreign-");
  const file = path.join(dir, "d.xml");
  fs.writeFileSync(
    file,
    xml().ele("domain", { type: "qemu" }).ele("name").txt(name).up().ele("memory", { unit: "MiB" }).txt("64").up().ele("os").ele("type").txt("hvm").end(),
  );
  virsh(["define", file]);
  try {
    await fn(virsh(["domuuid", name]));
  } finally {
    virsh(["undefine", name]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
