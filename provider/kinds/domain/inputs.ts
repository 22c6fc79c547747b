// A Domain's inputs: their types, the defaults `check` fills in, and the validation
// of every property with a message that names it.
import { checkNamedInputs } from "../../resources/named-check";
import { domainDeclaration } from "./declaration";
import { DIRECT_MODES, DomainInputs } from "./types";
import type { DiskInput } from "./types";

export type { DiskInput, DomainInputs, DomainOutputs, InterfaceInput, SeedRecord } from "./types";
export { DIRECT_MODES } from "./types";
import { parseDuration, parseSize } from "../../units";
import { DISK_CACHES, DISK_DISCARDS, isQ35 } from "../../xml/domain";
import { checkName, Failures, IFACE_RE, MAC_RE, reporter } from "../../resources/input-checks";
import { isUnknown } from "../../resources/unknown";
import { WaitForIp } from "./ip";

/** Where a new domain's seed volume goes: the pool of its first disk. */
export function seedPoolFor(d: DomainInputs): string {
  return d.disks[0]?.pool ?? "default";
}

export function waitSpec(w: DomainInputs["waitForIp"]): WaitForIp | undefined {
  if (!w) return undefined;
  const o = w === true ? {} : w;
  const t = parseDuration(o.timeout ?? "5m");
  return { timeoutMs: "ms" in t ? t.ms : 300_000, source: o.source ?? "any", family: o.family ?? "ipv4" };
}

export function shutdownMs(d: DomainInputs): number {
  const t = parseDuration(d.shutdownTimeout ?? "60s");
  return "ms" in t ? t.ms : 60_000;
}

export function checkInputs(news: DomainInputs, failures: Failures): DomainInputs {
  const d = checkNamedInputs(failures, domainDeclaration, news);
  const bad = reporter(failures);
  if (!isUnknown(d.type) && !["kvm", "qemu"].includes(d.type!)) bad("type", `must be "kvm" or "qemu" (software emulation), got ${JSON.stringify(d.type)}`);
  if (!isUnknown(d.vcpu) && (!Number.isInteger(d.vcpu) || d.vcpu! < 1 || d.vcpu! > 512))
    bad("vcpu", `must be a whole number 1-512, got ${JSON.stringify(d.vcpu)}`);
  for (const k of ["memory", "maxMemory"] as const) {
    const given = news[k] ?? (k === "memory" ? 512 : undefined);
    if (given === undefined || isUnknown(given)) continue;
    const m = parseSize(given, 2 ** 20);
    if ("error" in m) bad(k, `${m.error} (a number means MiB)`);
    else if (m.bytes < 32 * 2 ** 20) bad(k, `${JSON.stringify(given)} is under 32 MiB; no guest boots with that`);
    else if (m.bytes > 2 ** 42) bad(k, `${JSON.stringify(given)} is absurdly large (over 4 TiB)`);
    else d[k] = Math.round(m.bytes / 2 ** 20);
  }
  checkCeilings(news, d, bad);
  if (news.restartPolicy !== undefined && !isUnknown(news.restartPolicy) && !["allowed", "never"].includes(news.restartPolicy))
    bad("restartPolicy", `must be "allowed" or "never", got ${JSON.stringify(news.restartPolicy)}`);
  if (!isUnknown(d.firmware) && !["bios", "uefi"].includes(d.firmware!)) bad("firmware", `must be "bios" or "uefi", got ${JSON.stringify(d.firmware)}`);
  if (!isUnknown(d.graphics) && !["none", "vnc", "spice"].includes(d.graphics!)) bad("graphics", `must be "none", "vnc" or "spice"`);
  checkFirmwareOptions(news, d, bad);
  d.disks = checkDisks(news.disks, failures);
  d.networkInterfaces = checkInterfaces(d.networkInterfaces, failures);
  if (news.kernel !== undefined && !isUnknown(news.kernel) && (typeof news.kernel !== "string" || !news.kernel.startsWith("/")))
    bad("kernel", "must be an absolute path on the host");
  if (news.initrd !== undefined && !news.kernel) bad("initrd", "needs kernel: an initrd is only used with direct kernel boot");
  if (news.cmdline !== undefined && !news.kernel) bad("cmdline", "needs kernel: a command line is only used with direct kernel boot");
  checkWaitForIp(news, d, bad);
  if (news.shutdownTimeout !== undefined && "error" in parseDuration(news.shutdownTimeout))
    bad("shutdownTimeout", (parseDuration(news.shutdownTimeout) as { error: string }).error);
  if (news.cloudInit !== undefined && !isUnknown(news.cloudInit)) {
    const c = news.cloudInit;
    if (c.hostname !== undefined && !/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})$/.test(c.hostname))
      bad(
        "cloudInit.hostname",
        'is not a host name: use letters, digits and "-", at most 63, starting with a letter or digit (cloudInit is a secret, so its value is not shown)',
      );
    for (const k of ["userData", "vendorData", "metaData", "networkConfig"] as const) {
      if (c[k] !== undefined && typeof c[k] !== "string") bad(`cloudInit.${k}`, "must be a string");
    }
  }
  return d;
}

/** secureBoot (UEFI on q35, the machine filled in when left out) and the TPM with its defaults. */
function checkFirmwareOptions(news: DomainInputs, d: DomainInputs, bad: (property: string, reason: string) => void): void {
  if (news.secureBoot === true) {
    if (!isUnknown(d.firmware) && d.firmware !== "uefi")
      bad("secureBoot", `needs firmware: "uefi" (Secure Boot is a UEFI feature), got firmware ${JSON.stringify(d.firmware ?? "bios")}`);
    if (d.machine === undefined) d.machine = "q35";
    else if (!isUnknown(d.machine) && !isQ35(String(d.machine)))
      bad("machine", `is ${JSON.stringify(d.machine)}, but secureBoot needs a q35 machine (its firmware runs in SMM): leave machine out or say "q35"`);
  }
  const t = news.tpm;
  if (t === undefined || isUnknown(t)) return;
  if (typeof t !== "object" || t === null || Array.isArray(t))
    return bad("tpm", '{ version?: "2.0" | "1.2", model?: "tpm-crb" | "tpm-tis" }, or {} for the defaults');
  const version = t.version ?? "2.0";
  if (!isUnknown(version) && version !== "2.0" && version !== "1.2") bad("tpm.version", `must be "2.0" or "1.2", got ${JSON.stringify(t.version)}`);
  const model = t.model ?? (version === "1.2" ? "tpm-tis" : "tpm-crb");
  if (!isUnknown(model) && model !== "tpm-crb" && model !== "tpm-tis") bad("tpm.model", `must be "tpm-crb" or "tpm-tis", got ${JSON.stringify(t.model)}`);
  else if (version === "1.2" && model === "tpm-crb") bad("tpm.model", 'tpm-crb is a TPM 2.0 interface: use "tpm-tis" for version "1.2"');
  d.tpm = { version, model };
}

/** maxVcpu and maxMemory: the current value when left out, never below it. */
function checkCeilings(news: DomainInputs, d: DomainInputs, bad: (property: string, reason: string) => void): void {
  if (news.maxVcpu !== undefined && !isUnknown(news.maxVcpu) && (!Number.isInteger(news.maxVcpu) || news.maxVcpu < 1 || news.maxVcpu > 512))
    bad("maxVcpu", `must be a whole number 1-512, got ${JSON.stringify(news.maxVcpu)}`);
  const below = (max: string, v: unknown, cur: unknown, k: string) => {
    if (typeof v === "number" && typeof cur === "number" && v < cur)
      bad(max, `is ${v}, below ${k} ${cur}: the ceiling must be at least the current value (raise ${max}, or lower ${k})`);
  };
  if (d.maxVcpu === undefined) d.maxVcpu = d.vcpu;
  else below("maxVcpu", d.maxVcpu, d.vcpu, "vcpu");
  if (d.maxMemory === undefined) d.maxMemory = d.memory;
  else below("maxMemory", d.maxMemory, d.memory, "memory");
}

/** The disks with their defaults (pool, device, bus). */
function checkDisks(disks: DomainInputs["disks"], failures: Failures): DomainInputs["disks"] {
  const bad = reporter(failures);
  if (!Array.isArray(disks) || disks.length === 0) {
    if (!isUnknown(disks)) bad("disks", "give at least one disk: [{ volume: myVolume }]");
    return disks;
  }
  const checked = disks.map((disk, i) => {
    const out: DiskInput = {
      ...disk,
      pool: disk.pool ?? "default",
      device: disk.device ?? "disk",
      bus: disk.bus ?? (disk.device === "cdrom" ? "sata" : "virtio"),
    };
    checkName(failures, `disks[${i}].volume`, disk.volume);
    checkName(failures, `disks[${i}].pool`, out.pool);
    if (!isUnknown(out.device) && !["disk", "cdrom"].includes(out.device!)) bad(`disks[${i}].device`, `must be "disk" or "cdrom"`);
    if (!isUnknown(out.bus) && !["virtio", "sata", "scsi", "ide"].includes(out.bus!)) bad(`disks[${i}].bus`, `must be virtio, sata, scsi or ide`);
    if (out.format === undefined) {
      bad(
        `disks[${i}].format`,
        `is required for a disk given by name ("${String(disk.volume)}"): say "raw" or "qcow2" (what the volume was made as). libvirt's guess from the file's header is not used: a guest can write any header into its disk. A Volume or Image passed as volume brings its recorded format`,
      );
    } else if (!isUnknown(out.format) && !["qcow2", "raw"].includes(out.format)) bad(`disks[${i}].format`, `must be "qcow2" or "raw"`);
    const base = out.backing;
    if (base !== undefined && !isUnknown(base) && (typeof base?.path !== "string" || !base.path.startsWith("/") || !["qcow2", "raw"].includes(base.format))) {
      bad(`disks[${i}].backing`, 'must be { path: an absolute path on the host, format: "qcow2" or "raw" } (the SDK fills it from a Volume)');
    }
    if (base && !isUnknown(base) && out.format === "raw") bad(`disks[${i}].backing`, 'a raw disk has no base: drop backing or say format "qcow2"');
    if (out.device === "cdrom" && out.bus === "virtio") bad(`disks[${i}].bus`, "a cdrom cannot sit on virtio: use sata or scsi");
    checkDiskOptions(out, `disks[${i}]`, bad);
    return out;
  });
  const orders = checked.map((x) => x.bootOrder).filter((o): o is number => typeof o === "number");
  if (new Set(orders).size !== orders.length) bad("disks", `two disks have the same bootOrder (${orders.join(", ")}): give each its own place`);
  return checked;
}

/** The interfaces with their defaults (model, a direct one's mode), MACs in lower case. */
function checkInterfaces(nics: DomainInputs["networkInterfaces"], failures: Failures): DomainInputs["networkInterfaces"] {
  const bad = reporter(failures);
  // an Output of the whole array is unknown in a preview before its parts exist
  if (!Array.isArray(nics)) {
    if (!isUnknown(nics)) bad("networkInterfaces", 'must be an array: [{ network: "default" }]');
    return nics;
  }
  nics.forEach((nic, i) => {
    if (isUnknown(nic)) return;
    if ([nic.network, nic.bridge, nic.direct].filter((x) => x !== undefined).length > 1)
      bad(`networkInterfaces[${i}]`, "give one of network, bridge or direct");
    if (nic.bridge !== undefined && !isUnknown(nic.bridge) && !IFACE_RE.test(String(nic.bridge)))
      bad(`networkInterfaces[${i}].bridge`, `must be a host bridge's name such as "br0", got ${JSON.stringify(nic.bridge)}`);
    if (nic.direct !== undefined && !isUnknown(nic.direct)) {
      if (!nic.direct || typeof nic.direct.dev !== "string" || !IFACE_RE.test(nic.direct.dev))
        bad(`networkInterfaces[${i}].direct.dev`, `must be a host network device such as "eth0", got ${JSON.stringify(nic.direct?.dev)}`);
      if (nic.direct?.mode !== undefined && !DIRECT_MODES.includes(nic.direct.mode))
        bad(`networkInterfaces[${i}].direct.mode`, `must be one of ${DIRECT_MODES.map((m) => `"${m}"`).join(", ")}, got ${JSON.stringify(nic.direct.mode)}`);
    }
    if (nic.network !== undefined) checkName(failures, `networkInterfaces[${i}].network`, nic.network);
    if (nic.filter !== undefined) checkName(failures, `networkInterfaces[${i}].filter`, nic.filter);
    if (nic.mac !== undefined && !isUnknown(nic.mac) && !MAC_RE.test(nic.mac))
      bad(`networkInterfaces[${i}].mac`, `"${nic.mac}" is not a MAC address like 52:54:00:12:34:56`);
    if (nic.mac && MAC_RE.test(nic.mac) && parseInt(nic.mac.slice(0, 2), 16) & 1)
      bad(`networkInterfaces[${i}].mac`, `"${nic.mac}" is a multicast address; use a unicast one such as 52:54:00:…`);
  });
  return nics.map((n) =>
    isUnknown(n)
      ? n
      : {
          ...n,
          model: n.model ?? "virtio",
          ...(n.mac ? { mac: n.mac.toLowerCase() } : {}),
          ...(n.direct?.dev ? { direct: { ...n.direct, mode: n.direct.mode ?? "bridge" } } : {}),
        },
  );
}

/** waitForIp: its parts, and whether an address can come at all the way it asks. */
function checkWaitForIp(news: DomainInputs, d: DomainInputs, bad: (property: string, reason: string) => void): void {
  const wait = news.waitForIp;
  if (wait && wait !== true && !isUnknown(wait)) {
    if (wait.timeout !== undefined && "error" in parseDuration(wait.timeout))
      bad("waitForIp.timeout", (parseDuration(wait.timeout) as { error: string }).error);
    if (wait.source !== undefined && !["lease", "agent", "arp", "any"].includes(wait.source))
      bad("waitForIp.source", `must be "lease", "agent", "arp" or "any"`);
    if (wait.family !== undefined && !["ipv4", "ipv6", "any"].includes(wait.family)) bad("waitForIp.family", `must be "ipv4", "ipv6" or "any"`);
    if (wait.source === "agent" && !news.qemuAgent) bad("waitForIp.source", `"agent" needs qemuAgent: true (and the agent in the guest)`);
  }
  if (wait && d.running === false) bad("waitForIp", "a domain with running: false never gets an address; drop waitForIp or run it");
  if (wait && Array.isArray(d.networkInterfaces) && d.networkInterfaces.length === 0)
    bad("waitForIp", "the domain has no networkInterfaces to get an address on");
  const source = wait && wait !== true && !isUnknown(wait) ? (wait.source ?? "any") : "any";
  const leased = Array.isArray(d.networkInterfaces) && d.networkInterfaces.some((n) => isUnknown(n) || (!n.bridge && !n.direct));
  if (
    wait &&
    Array.isArray(d.networkInterfaces) &&
    d.networkInterfaces.length > 0 &&
    !leased &&
    (source === "lease" || (source === "any" && !news.qemuAgent))
  ) {
    bad(
      "waitForIp.source",
      `libvirt keeps no DHCP lease for bridge and direct interfaces: use source "arp" (the host's ARP table) or "agent" (with qemuAgent: true)`,
    );
  }
  if (wait && !news.kernel && d.disks?.[0]?.device === "cdrom" && !news.cloudInit) {
    bad(
      "disks[0].device",
      "the boot disk is a cdrom and waitForIp is set: an installer ISO gets no address by itself; boot from a disk volume or drop waitForIp",
    );
  }
}

/** A disk's options as libvirt takes them; `bad` reports one property's failure. */
function checkDiskOptions(disk: DiskInput, at: string, bad: (property: string, reason: string) => void): void {
  const { bootOrder, cache, discard, serial, readonly } = disk;
  if (bootOrder !== undefined && !isUnknown(bootOrder) && (!Number.isInteger(bootOrder) || bootOrder < 1 || bootOrder > 64))
    bad(`${at}.bootOrder`, `must be a whole number 1-64 (1 boots first), got ${JSON.stringify(bootOrder)}`);
  if (cache !== undefined && !isUnknown(cache) && !DISK_CACHES.includes(cache))
    bad(`${at}.cache`, `must be one of ${DISK_CACHES.join(", ")}, got ${JSON.stringify(cache)}`);
  if (discard !== undefined && !isUnknown(discard) && !DISK_DISCARDS.includes(discard))
    bad(`${at}.discard`, `must be "unmap" (pass the guest's discards on) or "ignore", got ${JSON.stringify(discard)}`);
  // qemu passes at most 20 characters on to the guest, and libvirt takes no blanks or quotes
  if (serial !== undefined && !isUnknown(serial) && !/^[A-Za-z0-9_.+-]{1,20}$/.test(String(serial)))
    bad(`${at}.serial`, `must be 1-20 letters, digits or _ . + -, got ${JSON.stringify(serial)}`);
  if (readonly !== undefined && !isUnknown(readonly) && typeof readonly !== "boolean")
    bad(`${at}.readonly`, `must be true or false, got ${JSON.stringify(readonly)}`);
}
