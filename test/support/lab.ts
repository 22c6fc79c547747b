// The lab's settings (.lab/env, written by scripts/lab up). A test that needs the lab
// calls labEnv(): when the lab is missing it fails with the command that starts it;
// it never skips.
import * as fs from "fs";
import * as path from "path";
import { running } from "./pids";

export interface LabEnv {
  host: string;
  port: number;
  port2: number;
  user: string;
  key: string;
  knownHosts: string;
  socket: string;
  pool: string;
  poolDir: string;
  network: string;
  networkNoDhcp: string;
  /** A host bridge (the lab network's), for bridge NICs. */
  bridge: string;
  /** A host device on that bridge, for direct (macvtap) NICs. */
  directDev: string;
  netns: string;
  image: string;
  /** The Debian cloud image (real cloud-init, boots by itself under BIOS and UEFI). */
  cloudImage: string;
  kernel: string;
  initrd: string;
  sshdLog: string;
  sshdLog2: string;
  sshdConfig: string;
  sshdPid: string;
  libvirtdPid: string;
  pulumiBin?: string;
  /** Hypervisor B: a libvirtd of its own (own namespaces, pool and network under A's names), behind an sshd of its own. */
  b: {
    port: number;
    socket: string;
    /** virsh's URI for it from this machine. */
    uri: string;
    pool: string;
    /** Its pool's directory as this machine sees it (B sees it at A's path). */
    poolDir: string;
    netns: string;
    libvirtdPid: string;
    /** Its address on the link between the two hypervisors, where A's qemu sends a migrating domain. */
    migrationAddress: string;
  };
  raw: Record<string, string>;
}

export const repoRoot = path.resolve(__dirname, "..", "..", "..");

export function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}

let cached: LabEnv | undefined;

export function labEnv(): LabEnv {
  if (cached) return cached;
  const file = path.join(repoRoot, ".lab", "env");
  if (!fs.existsSync(file) || !readEnvFile(file).KVM_LAB_HOST) {
    throw new Error(`the lab is not up (${file} missing): run scripts/lab up`);
  }
  const e = readEnvFile(file);
  const need = (k: string): string => {
    const v = e[k];
    if (!v) throw new Error(`${file} lacks ${k}: rerun scripts/lab up`);
    return v;
  };
  cached = {
    host: need("KVM_LAB_HOST"),
    port: Number(need("KVM_LAB_PORT")),
    port2: Number(need("KVM_LAB_PORT2")),
    user: need("KVM_LAB_USER"),
    key: need("KVM_LAB_KEY"),
    knownHosts: need("KVM_LAB_KNOWN_HOSTS"),
    socket: need("KVM_LAB_SOCKET"),
    pool: need("KVM_LAB_POOL"),
    poolDir: need("KVM_LAB_POOL_DIR"),
    network: need("KVM_LAB_NETWORK"),
    networkNoDhcp: need("KVM_LAB_NETWORK_NODHCP"),
    bridge: need("KVM_LAB_BRIDGE"),
    directDev: need("KVM_LAB_DIRECT_DEV"),
    netns: need("KVM_LAB_NETNS"),
    image: need("KVM_LAB_IMAGE"),
    cloudImage: need("KVM_LAB_CLOUD_IMAGE"),
    kernel: need("KVM_LAB_KERNEL"),
    initrd: need("KVM_LAB_INITRD"),
    sshdLog: need("KVM_LAB_SSHD_LOG"),
    sshdLog2: need("KVM_LAB_SSHD_LOG2"),
    sshdConfig: need("KVM_LAB_SSHD_CONFIG"),
    sshdPid: need("KVM_LAB_SSHD_PID"),
    libvirtdPid: need("KVM_LAB_LIBVIRTD_PID"),
    pulumiBin: e.KVM_LAB_PULUMI_BIN,
    b: {
      port: Number(need("KVM_LAB_PORT_B")),
      socket: need("KVM_LAB_SOCKET_B"),
      uri: need("KVM_LAB_URI_B"),
      pool: need("KVM_LAB_POOL_B"),
      poolDir: need("KVM_LAB_POOL_DIR_B"),
      netns: need("KVM_LAB_NETNS_B"),
      libvirtdPid: need("KVM_LAB_LIBVIRTD_PID_B"),
      migrationAddress: need("KVM_LAB_MIGRATION_ADDRESS_B"),
    },
    raw: e,
  };
  return cached;
}

/** The stack config that points examples/quickstart at the lab (what scripts/quickstart sets). */
export function quickstartLabConfig(lab = labEnv()): Record<string, string> {
  return {
    address: lab.host,
    port: String(lab.port),
    user: lab.user,
    privateKeyPath: lab.key,
    knownHostsPath: lab.knownHosts,
    imagePath: lab.image,
    network: lab.network,
    domainType: "qemu",
    memory: "256MiB",
  };
}

/** The stack config that points examples/fleet at the lab's two sshd. */
export function fleetLabConfig(lab = labEnv()): Record<string, string> {
  return {
    addressA: lab.host,
    portA: String(lab.port),
    addressB: lab.host,
    portB: String(lab.port2),
    user: lab.user,
    privateKeyPath: lab.key,
    knownHostsPath: lab.knownHosts,
    imagePath: lab.image,
    network: lab.network,
    domainType: "qemu",
    memory: "256MiB",
  };
}

/** Where the test file that uses hypervisor B notes its pid (`holdB`). */
const bLock = () => path.join(repoRoot, ".lab", "b.lock");

/**
 * Hypervisor B is one per lab, and the files that use it kill its libvirtd: while npm test
 * runs files in parallel, one file at a time holds it (a lock left by a process that ended
 * is taken over). Call in before(), and `releaseB` in after().
 */
export async function holdB(): Promise<void> {
  for (;;) {
    try {
      fs.writeFileSync(bLock(), String(process.pid), { flag: "wx" });
      return;
    } catch {
      const holder = Number(fs.readFileSync(bLock(), "utf8") || "0");
      if (holder && !running(holder)) fs.rmSync(bLock(), { force: true });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export function releaseB(): void {
  if (fs.existsSync(bLock()) && fs.readFileSync(bLock(), "utf8") === String(process.pid)) fs.rmSync(bLock());
}
