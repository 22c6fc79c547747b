// The Domain resource: a VM with a cloud-init NoCloud seed, enforced running and
// autostart state, in-place updates that keep UUID and MACs, waiting for an IP, and
// deletes that shut down gracefully and leave nothing behind.
import * as fs from "fs";
import * as path from "path";
import { explain, KvmError } from "../errors";
import { buildSeed, CloudInit } from "../iso/seed";
import { DomainRef, DomainXmlFlags, Libvirt, UndefineFlags } from "../libvirt/api";
import { hostPool } from "../pool/host-pool";
import { LibvirtError } from "../rpc/errors";
import { stageTempDir } from "../image/source";
import { HostConfig } from "../ssh/host";
import { parseDuration, parseSize } from "../units";
import { DiskSpec, domainXml, DomainSpec, InterfaceSpec, OWNER_NS, parseDomainXml } from "../xml/domain";
import { volumeXml } from "../xml/volume";
import { checkHostHealth, checkHostInput, checkName, deepEqual, Failures, hostLabel, isUnknown, sameHost } from "./common";
import { interfaceAddresses, IpFamily, IpSource, leaseStamps, waitForAddress, WaitForIp, waitForRenewedLease } from "./domain-ip";
import { isActive, isActiveState, stopGracefully } from "./domain-power";
import { clearLeftovers, rollback } from "./rollback";
import { describeVolume, findPool, findVolume } from "./storage";
import { DiffResult, ResourceProvider } from "./types";

export interface DiskInput {
  /** Volume name (a Volume's or Image's name). */
  volume: string;
  pool?: string;
  device?: "disk" | "cdrom";
  bus?: DiskSpec["bus"];
}

export interface InterfaceInput {
  network?: string;
  bridge?: string;
  mac?: string;
  model?: string;
}

export interface DomainInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
  type?: "kvm" | "qemu";
  vcpu?: number;
  /** MiB after check ("2GiB" or a number of MiB before). */
  memory?: number | string;
  firmware?: "bios" | "uefi";
  machine?: string;
  cpuMode?: string;
  disks: DiskInput[];
  networkInterfaces?: InterfaceInput[];
  cloudInit?: CloudInit;
  kernel?: string;
  initrd?: string;
  cmdline?: string;
  running?: boolean;
  autostart?: boolean;
  qemuAgent?: boolean;
  graphics?: "none" | "vnc" | "spice";
  waitForIp?: boolean | { timeout?: string; source?: IpSource; family?: IpFamily };
  /** Bound on the graceful ACPI shutdown before destroy, e.g. "60s". */
  shutdownTimeout?: string;
}

export interface DomainOutputs extends DomainInputs {
  kvmKind: "Domain";
  uuid: string;
  state: string;
  interfaces: { mac: string; network: string; addresses: string[] }[];
  ipAddress?: string;
  seedVolume?: string;
}

const STATE_NAMES = ["nostate", "running", "blocked", "paused", "shutdown", "shutoff", "crashed", "pmsuspended"];
const REPLACE_KEYS = ["name", "type", "firmware", "machine", "cloudInit"] as const;
const UPDATE_KEYS = ["vcpu", "memory", "disks", "networkInterfaces", "cpuMode", "kernel", "initrd", "cmdline", "qemuAgent", "graphics"] as const;
const MAC_RE = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

function waitSpec(w: DomainInputs["waitForIp"]): WaitForIp | undefined {
  if (!w) return undefined;
  const o = w === true ? {} : w;
  const t = parseDuration(o.timeout ?? "5m");
  return { timeoutMs: "ms" in t ? t.ms : 300_000, source: o.source ?? "any", family: o.family ?? "ipv4" };
}

function shutdownMs(d: DomainInputs): number {
  const t = parseDuration(d.shutdownTimeout ?? "60s");
  return "ms" in t ? t.ms : 60_000;
}

function seedPool(d: DomainInputs): string {
  return d.disks[0]?.pool ?? "default";
}

function checkInputs(news: DomainInputs, failures: Failures): DomainInputs {
  const d: DomainInputs = {
    ...news,
    name: news.name ?? news.resourceName ?? "",
    type: news.type ?? "kvm",
    vcpu: news.vcpu ?? 1,
    firmware: news.firmware ?? "bios",
    running: news.running ?? true,
    autostart: news.autostart ?? false,
    qemuAgent: news.qemuAgent ?? false,
    graphics: news.graphics ?? "none",
    networkInterfaces: news.networkInterfaces ?? [],
  };
  const bad = (property: string, reason: string) => failures.push({ property, reason: `${property}: ${reason}` });
  d.host = checkHostInput(failures, news.host) as HostConfig;
  checkName(failures, "name", d.name);
  if (!isUnknown(d.type) && !["kvm", "qemu"].includes(d.type!)) bad("type", `must be "kvm" or "qemu" (software emulation), got ${JSON.stringify(d.type)}`);
  if (!isUnknown(d.vcpu) && (!Number.isInteger(d.vcpu) || d.vcpu! < 1 || d.vcpu! > 512)) bad("vcpu", `must be a whole number 1-512, got ${JSON.stringify(d.vcpu)}`);
  if (!isUnknown(news.memory)) {
    const m = parseSize(news.memory ?? 512, 2 ** 20);
    if ("error" in m) bad("memory", `${m.error} (a number means MiB)`);
    else if (m.bytes < 32 * 2 ** 20) bad("memory", `${JSON.stringify(news.memory)} is under 32 MiB; no guest boots with that`);
    else if (m.bytes > 2 ** 42) bad("memory", `${JSON.stringify(news.memory)} is absurdly large (over 4 TiB)`);
    else d.memory = Math.round(m.bytes / 2 ** 20);
  }
  if (!isUnknown(d.firmware) && !["bios", "uefi"].includes(d.firmware!)) bad("firmware", `must be "bios" or "uefi", got ${JSON.stringify(d.firmware)}`);
  if (!isUnknown(d.graphics) && !["none", "vnc", "spice"].includes(d.graphics!)) bad("graphics", `must be "none", "vnc" or "spice"`);
  if (!Array.isArray(news.disks) || news.disks.length === 0) {
    if (!isUnknown(news.disks)) bad("disks", "give at least one disk: [{ volume: myVolume }]");
  } else {
    d.disks = news.disks.map((disk, i) => {
      const out: DiskInput = { ...disk, pool: disk.pool ?? "default", device: disk.device ?? "disk", bus: disk.bus ?? (disk.device === "cdrom" ? "sata" : "virtio") };
      checkName(failures, `disks[${i}].volume`, disk.volume);
      checkName(failures, `disks[${i}].pool`, out.pool);
      if (!isUnknown(out.device) && !["disk", "cdrom"].includes(out.device!)) bad(`disks[${i}].device`, `must be "disk" or "cdrom"`);
      if (!isUnknown(out.bus) && !["virtio", "sata", "scsi", "ide"].includes(out.bus!)) bad(`disks[${i}].bus`, `must be virtio, sata, scsi or ide`);
      if (out.device === "cdrom" && out.bus === "virtio") bad(`disks[${i}].bus`, "a cdrom cannot sit on virtio: use sata or scsi");
      return out;
    });
  }
  (d.networkInterfaces ?? []).forEach((nic, i) => {
    if (isUnknown(nic)) return;
    if (nic.network && nic.bridge) bad(`networkInterfaces[${i}]`, "give network or bridge, not both");
    if (nic.network !== undefined) checkName(failures, `networkInterfaces[${i}].network`, nic.network);
    if (nic.mac !== undefined && !isUnknown(nic.mac) && !MAC_RE.test(nic.mac)) bad(`networkInterfaces[${i}].mac`, `"${nic.mac}" is not a MAC address like 52:54:00:12:34:56`);
    if (nic.mac && MAC_RE.test(nic.mac) && parseInt(nic.mac.slice(0, 2), 16) & 1) bad(`networkInterfaces[${i}].mac`, `"${nic.mac}" is a multicast address; use a unicast one such as 52:54:00:…`);
  });
  d.networkInterfaces = (d.networkInterfaces ?? []).map((n) => ({ ...n, model: n.model ?? "virtio", ...(n.mac ? { mac: n.mac.toLowerCase() } : {}) }));
  if (news.kernel !== undefined && !isUnknown(news.kernel) && (typeof news.kernel !== "string" || !news.kernel.startsWith("/"))) bad("kernel", "must be an absolute path on the host");
  if (news.initrd !== undefined && !news.kernel) bad("initrd", "needs kernel: an initrd is only used with direct kernel boot");
  if (news.cmdline !== undefined && !news.kernel) bad("cmdline", "needs kernel: a command line is only used with direct kernel boot");
  const wait = news.waitForIp;
  if (wait && wait !== true && !isUnknown(wait)) {
    if (wait.timeout !== undefined && "error" in parseDuration(wait.timeout)) bad("waitForIp.timeout", (parseDuration(wait.timeout) as { error: string }).error);
    if (wait.source !== undefined && !["lease", "agent", "any"].includes(wait.source)) bad("waitForIp.source", `must be "lease", "agent" or "any"`);
    if (wait.family !== undefined && !["ipv4", "ipv6", "any"].includes(wait.family)) bad("waitForIp.family", `must be "ipv4", "ipv6" or "any"`);
    if (wait.source === "agent" && !news.qemuAgent) bad("waitForIp.source", `"agent" needs qemuAgent: true (and the agent in the guest)`);
  }
  if (wait && d.running === false) bad("waitForIp", "a domain with running: false never gets an address; drop waitForIp or run it");
  if (wait && (d.networkInterfaces ?? []).length === 0) bad("waitForIp", "the domain has no networkInterfaces to get an address on");
  if (wait && !news.kernel && d.disks?.[0]?.device === "cdrom" && !news.cloudInit) {
    bad("disks[0].device", "the boot disk is a cdrom and waitForIp is set: an installer ISO gets no address by itself; boot from a disk volume or drop waitForIp");
  }
  if (news.shutdownTimeout !== undefined && "error" in parseDuration(news.shutdownTimeout)) bad("shutdownTimeout", (parseDuration(news.shutdownTimeout) as { error: string }).error);
  if (news.cloudInit !== undefined && !isUnknown(news.cloudInit)) {
    const c = news.cloudInit;
    if (c.hostname !== undefined && !/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})$/.test(c.hostname)) bad("cloudInit.hostname", `"${c.hostname}" is not a host name (letters, digits, "-", at most 63)`);
    for (const k of ["userData", "metaData", "networkConfig"] as const) {
      if (c[k] !== undefined && typeof c[k] !== "string") bad(`cloudInit.${k}`, "must be a string");
    }
  }
  return d;
}

async function ownedDomain(lv: Libvirt, uuid: string, host: string, action: string): Promise<DomainRef | undefined> {
  let dom: DomainRef;
  try {
    dom = await lv.lookupDomainByUuid(Buffer.from(uuid.replace(/-/g, ""), "hex"));
  } catch (err) {
    if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_DOMAIN") return undefined;
    throw err;
  }
  try {
    await lv.domainMetadata(dom, OWNER_NS);
  } catch (err) {
    if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_DOMAIN_METADATA") {
      throw new KvmError("permanent", `domain ${dom.name} was not created by pulumi-kvm (no ownership marker in its metadata); refusing to ${action} it`, {
        host, fix: "Manage it by hand, or remove it from the stack with pulumi state delete",
      });
    }
    throw err;
  }
  return dom;
}

async function resolveDisks(lv: Libvirt, d: DomainInputs, host: string): Promise<DiskSpec[]> {
  return Promise.all(d.disks.map(async (disk, i) => {
    const pool = await findPool(lv, disk.pool ?? "default");
    const vol = pool && (await findVolume(lv, pool, disk.volume));
    if (!vol) {
      throw new KvmError("not-found", `volume "${disk.volume}" is not in pool "${disk.pool}"`, { host, property: `disks[${i}].volume`, fix: "Create it (a Volume resource) or fix the name and pool" });
    }
    const desc = await describeVolume(lv, vol);
    return { path: desc.path, format: desc.format ?? "raw", device: disk.device ?? "disk", bus: disk.bus ?? "virtio" };
  }));
}

function specOf(d: DomainInputs, disks: DiskSpec[], seedPath: string | undefined, owner: string, macs: string[] = [], uuid?: string): DomainSpec {
  return {
    name: d.name, uuid, type: d.type ?? "kvm", vcpu: d.vcpu ?? 1, memoryMiB: Number(d.memory ?? 512), firmware: d.firmware ?? "bios",
    machine: d.machine, cpuMode: d.cpuMode, disks, seedPath,
    interfaces: (d.networkInterfaces ?? []).map((n, i): InterfaceSpec => ({ network: n.network, bridge: n.bridge, model: n.model ?? "virtio", mac: n.mac ?? macs[i] })),
    kernel: d.kernel, initrd: d.initrd, cmdline: d.cmdline, qemuAgent: !!d.qemuAgent, graphics: d.graphics ?? "none", owner,
  };
}

async function outputsOf(lv: Libvirt, dom: DomainRef, d: DomainInputs, extra: Partial<DomainOutputs>): Promise<DomainOutputs> {
  const parsed = parseDomainXml(await lv.domainXml(dom, 0));
  const { state } = await lv.domainState(dom);
  const autostart = await lv.domainAutostart(dom);
  const wait = waitSpec(d.waitForIp);
  const addrs = isActiveState(state) ? await interfaceAddresses(lv, dom, wait?.source ?? "lease", wait?.family ?? "ipv4") : [];
  const interfaces = parsed.interfaces.map((i) => ({
    mac: i.mac, network: i.network ?? (i.bridge ? `bridge:${i.bridge}` : ""), addresses: addrs.find((a) => a.mac === i.mac.toLowerCase())?.addresses ?? [],
  }));
  return {
    ...d, ...extra, kvmKind: "Domain", uuid: parsed.uuid, name: parsed.name, state: STATE_NAMES[state] ?? String(state),
    running: isActiveState(state), autostart, vcpu: parsed.vcpu, memory: parsed.memoryMiB, interfaces,
    ipAddress: interfaces.flatMap((i) => i.addresses)[0],
  };
}

export const domainProvider: ResourceProvider<DomainInputs, DomainOutputs> = {
  async check(_olds, news) {
    const failures: Failures = [];
    const inputs = checkInputs(news, failures);
    const networks = [...new Set((inputs.networkInterfaces ?? []).map((n) => n.network).filter((n): n is string => !!n && !isUnknown(n)))];
    await checkHostHealth(failures, inputs.host, seedPool(inputs), networks[0]);
    for (const net of networks.slice(1)) await checkHostHealth(failures, inputs.host, seedPool(inputs), net);
    return { inputs, failures };
  },

  async diff(_id, olds, news) {
    const replaces: string[] = [];
    if (!sameHost(olds.host, news.host)) replaces.push("host");
    for (const k of REPLACE_KEYS) if (!deepEqual(olds[k], news[k])) replaces.push(k);
    const updates = UPDATE_KEYS.filter((k) => !deepEqual(olds[k], news[k]));
    const changes = replaces.length > 0 || updates.length > 0 || olds.running !== news.running || olds.autostart !== news.autostart
      || !deepEqual(olds.host, news.host) || !deepEqual(olds.waitForIp, news.waitForIp) || olds.shutdownTimeout !== news.shutdownTimeout;
    const result: DiffResult = { changes, replaces, deleteBeforeReplace: replaces.length > 0 && olds.name === news.name };
    return result;
  },

  async create(d) {
    const host = hostLabel(d.host);
    const owner = d.resourceName ?? d.name;
    let seed: { pool: string; name: string } | undefined;
    let created: DomainRef | undefined;
    try {
      const { dom, seedVolume } = await hostPool.run(d.host, async (lv) => {
        await clearLeftovers(d.host, lv);
        try {
          await lv.lookupDomain(d.name);
          throw new KvmError("conflict", `a domain named "${d.name}" already exists`, { host, property: "name", fix: "Pulumi cannot adopt it: remove it on the host or choose another name" });
        } catch (err) {
          if (!(err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_DOMAIN")) throw err;
        }
        const disks = await resolveDisks(lv, d, host);
        let seedPath: string | undefined;
        let seedVolume: string | undefined;
        if (d.cloudInit) {
          const s = buildSeed(d.cloudInit, d.name);
          seedVolume = `${d.name}-seed.iso`;
          const pool = await lv.lookupPool(seedPool(d));
          if (await findVolume(lv, pool, seedVolume)) {
            throw new KvmError("conflict", `seed volume "${seedVolume}" already exists in pool "${pool.name}"`, { host, fix: "Remove the stale seed volume on the host" });
          }
          // staged through a temp file, as the ISO of a big user-data may be
          const staging = await stageTempDir("cloudInit", "the seed ISO");
          try {
            const file = path.join(staging.path, "seed.iso");
            try {
              fs.writeFileSync(file, s.iso);
            } catch (err) {
              throw new KvmError("permanent", `cannot write the seed ISO in ${staging.path}: ${(err as Error).message}`, { property: "cloudInit", fix: "Point TMPDIR at a writable directory with free space", cause: err });
            }
            const vol = await lv.createVolume(pool, volumeXml({ name: seedVolume, capacityBytes: s.iso.length, format: "raw" }));
            seed = { pool: pool.name, name: seedVolume };
            await lv.uploadVolume(vol, (async function* () { yield { data: fs.readFileSync(file) }; })());
            seedPath = await lv.volumePath(vol);
          } finally {
            await staging.cleanup();
          }
        }
        const dom = await lv.defineDomain(domainXml(specOf(d, disks, seedPath, owner)));
        created = dom;
        if (d.autostart) await lv.setDomainAutostart(dom, true);
        if (d.running !== false) await lv.startDomain(dom);
        return { dom, seedVolume };
      }, { mutating: true });
      const wait = waitSpec(d.waitForIp);
      return await hostPool.run(d.host, async (lv) => {
        const extra = { seedVolume };
        if (wait && !(await waitForAddress(lv, dom, wait))) {
          const outs = await outputsOf(lv, dom, d, extra);
          // the VM exists: Pulumi keeps tracking it ("created but failed to initialize")
          throw Object.assign(new Error(`${host}: domain ${d.name} got no ${wait.family} address within ${wait.timeoutMs / 1000} s (waitForIp, source ${wait.source})`), {
            id: outs.uuid, properties: outs,
            reasons: [`no IP address within ${wait.timeoutMs / 1000} s: does the network serve DHCP, does the guest bring its interface up? The domain is kept; pulumi up retries the wait`],
          });
        }
        const outs = await outputsOf(lv, dom, d, extra);
        return { id: outs.uuid, outs };
      });
    } catch (err) {
      if ((err as { id?: string }).id) throw err;
      // nothing is left behind: undo the domain and the seed volume
      if (created) await rollback({ host: d.host, kind: "domain", name: d.name });
      if (seed) await rollback({ host: d.host, kind: "volume", pool: seed.pool, name: seed.name });
      throw explain(err, host, `creating domain ${d.name}`);
    }
  },

  async read(id, props) {
    const host = hostLabel(props.host);
    try {
      return await hostPool.run(props.host, async (lv) => {
        let dom: DomainRef;
        try {
          dom = await lv.lookupDomainByUuid(Buffer.from(id.replace(/-/g, ""), "hex"));
        } catch (err) {
          if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_DOMAIN") return { id: "", props };
          throw err;
        }
        return { id, props: await outputsOf(lv, dom, props, { seedVolume: props.seedVolume }) };
      });
    } catch (err) {
      throw explain(err, host, `reading domain ${props.name}`);
    }
  },

  async update(id, olds, news) {
    const host = hostLabel(olds.host);
    try {
      let leasesBefore = new Map<string, bigint>();
      const { dom, restarted } = await hostPool.run(olds.host, async (lv) => {
        const dom = await ownedDomain(lv, id, host, "update");
        if (!dom) throw new KvmError("not-found", `domain ${olds.name} (${id}) is gone`, { host, fix: "Run pulumi refresh, then pulumi up to recreate it" });
        const redefine = UPDATE_KEYS.some((k) => !deepEqual(olds[k], news[k]));
        const wasActive = await isActive(lv, dom);
        let restarted = false;
        if (redefine) {
          const current = parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE /* the persistent config */));
          const disks = await resolveDisks(lv, news, host);
          const seedPath = current.disks.find((x) => x.device === "cdrom" && olds.seedVolume && x.path.endsWith(`/${olds.seedVolume}`))?.path;
          // same UUID and the same MAC for every interface that stays
          await lv.defineDomain(domainXml(specOf(news, disks, seedPath, olds.resourceName ?? olds.name, current.interfaces.map((i) => i.mac), current.uuid)));
          if (wasActive && news.running !== false) {
            // the running VM picks the change up only on a fresh start
            leasesBefore = await leaseStamps(lv, olds.interfaces ?? []);
            await stopGracefully(lv, dom, shutdownMs(news), host);
            await lv.startDomain(dom);
            restarted = true;
          }
        }
        if (news.running === false && (await isActive(lv, dom))) await stopGracefully(lv, dom, shutdownMs(news), host);
        if (news.running !== false && !(await isActive(lv, dom))) await lv.startDomain(dom);
        if (!!news.autostart !== (await lv.domainAutostart(dom))) await lv.setDomainAutostart(dom, !!news.autostart);
        return { dom, restarted };
      }, { mutating: true });
      return await hostPool.run(olds.host, async (lv) => {
        const wait = waitSpec(news.waitForIp);
        if (wait && news.running !== false) {
          const started = Date.now();
          if (restarted && wait.source !== "agent") await waitForRenewedLease(lv, olds.interfaces ?? [], leasesBefore, wait.timeoutMs);
          await waitForAddress(lv, dom, { ...wait, timeoutMs: Math.max(1000, wait.timeoutMs - (Date.now() - started)) });
        }
        return { outs: await outputsOf(lv, dom, news, { seedVolume: olds.seedVolume }) };
      });
    } catch (err) {
      throw explain(err, host, `updating domain ${olds.name}`);
    }
  },

  async delete(id, props) {
    const host = hostLabel(props.host);
    try {
      await hostPool.run(props.host, async (lv) => {
        const dom = await ownedDomain(lv, id, host, "delete");
        if (dom) {
          await stopGracefully(lv, dom, shutdownMs(props), host);
          await lv.undefineDomain(dom, UndefineFlags.NVRAM | UndefineFlags.MANAGED_SAVE | UndefineFlags.SNAPSHOTS_METADATA | UndefineFlags.CHECKPOINTS_METADATA);
        }
        if (props.seedVolume) {
          const pool = await findPool(lv, seedPool(props));
          const vol = pool && (await findVolume(lv, pool, props.seedVolume));
          if (vol) await lv.deleteVolume(vol);
        }
      }, { mutating: true });
    } catch (err) {
      throw explain(err, host, `deleting domain ${props.name}`);
    }
  },
};

