// Domain XML built from typed inputs with xmlbuilder2, and parsed back for read.
import { create } from "xmlbuilder2";
import { XMLBuilder } from "xmlbuilder2/lib/interfaces";
import { at, children, El, node, parseXml } from "./dom";
import { applyPatches, XmlPatch } from "./domain-patches";

/** Namespace of the ownership marker in <metadata>. */
export const OWNER_NS = "https://github.com/pulumi-kvm/pulumi-kvm/xmlns/domain/1";
export const OWNER_PREFIX = "pulumikvm";

/**
 * The ownership marker alone, as virDomainSetMetadata takes it for a running domain adopted
 * without a restart: libvirt puts the element in the call's namespace (OWNER_NS, OWNER_PREFIX).
 */
export const ownerMarkerXml = (owner: string): string => create().ele("owner").ele("resource").txt(owner).end({ headless: true });

export const DISK_CACHES = ["default", "none", "writethrough", "writeback", "directsync", "unsafe"] as const;
export const DISK_DISCARDS = ["unmap", "ignore"] as const;

/** What a disk may set beyond its volume: libvirt's defaults when absent. */
export interface DiskOptions {
  /** Its place in the boot order (1 first); without any, the first disk boots. */
  bootOrder?: number;
  cache?: (typeof DISK_CACHES)[number];
  /** "unmap" passes the guest's TRIM/discard on, freeing space in the volume. */
  discard?: (typeof DISK_DISCARDS)[number];
  /** The serial number the guest sees (/dev/disk/by-id/virtio-SERIAL). */
  serial?: string;
  readonly?: boolean;
}

export interface DiskSpec extends DiskOptions {
  path: string;
  format: string;
  device: "disk" | "cdrom";
  bus: "virtio" | "sata" | "scsi" | "ide";
  /** An overlay's base (the Image it was made from). Without one the disk has no backing chain. */
  backing?: { path: string; format: string };
}

export interface InterfaceSpec {
  network?: string;
  bridge?: string;
  direct?: { dev: string; mode: string };
  mac?: string;
  model: string;
  filter?: string;
}

export interface TpmSpec {
  version: "2.0" | "1.2";
  model: "tpm-crb" | "tpm-tis";
}

export interface DomainSpec {
  name: string;
  uuid?: string;
  type: "kvm" | "qemu";
  vcpu: number;
  memoryMiB: number;
  /** The ceilings a running VM's vCPUs and memory can be changed up to (at least vcpu, memoryMiB). */
  maxVcpu: number;
  maxMemoryMiB: number;
  firmware: "bios" | "uefi";
  /** UEFI with Secure Boot and the distribution's keys enrolled (needs a q35 machine; libvirt picks the firmware). */
  secureBoot: boolean;
  machine?: string;
  cpuMode?: string;
  /** An emulated TPM (swtpm on the host). */
  tpm?: TpmSpec;
  /** Applied last, to the XML built from the rest (domain-patches.ts). */
  xmlPatches?: readonly XmlPatch[];
  disks: DiskSpec[];
  /** The NoCloud seed, attached as a read-only cdrom. */
  seedPath?: string;
  interfaces: InterfaceSpec[];
  kernel?: string;
  initrd?: string;
  cmdline?: string;
  qemuAgent: boolean;
  graphics: "none" | "vnc" | "spice";
  /** The Pulumi resource this domain belongs to, stored in the ownership marker. */
  owner: string;
}

const PREFIX: Record<DiskSpec["bus"], string> = { virtio: "vd", sata: "sd", scsi: "sd", ide: "hd" };

/** Target device names by bus: vda, vdb… / sda… / hda… in the order given. */
export function targetNames(disks: { bus: DiskSpec["bus"] }[]): string[] {
  const used: Record<string, number> = {};
  return disks.map((d) => {
    const p = PREFIX[d.bus];
    const i = used[p] ?? 0;
    used[p] = i + 1;
    return p + String.fromCharCode(97 + i);
  });
}

function disk(devices: XMLBuilder, d: DiskSpec, target: string, bootOrder?: number): void {
  const el = devices.ele("disk", { type: "file", device: d.device });
  el.ele("driver", { name: "qemu", type: d.format, ...(d.cache ? { cache: d.cache } : {}), ...(d.discard ? { discard: d.discard } : {}) });
  el.ele("source", { file: d.path });
  // the backing chain spelt out, ending in an empty <backingStore/>: libvirt then probes
  // nothing, so no header written into a disk can point qemu at a file of the host
  let chain = el;
  if (d.backing) {
    chain = el.ele("backingStore", { type: "file" });
    chain.ele("format", { type: d.backing.format });
    chain.ele("source", { file: d.backing.path });
  }
  chain.ele("backingStore");
  el.ele("target", { dev: target, bus: d.bus });
  if (d.device === "cdrom" || d.readonly) el.ele("readonly");
  if (d.serial) el.ele("serial").txt(d.serial);
  if (bootOrder !== undefined) el.ele("boot", { order: String(bootOrder) });
}

function networkInterface(devices: XMLBuilder, nic: InterfaceSpec): void {
  const el = devices.ele("interface", { type: nic.direct ? "direct" : nic.bridge ? "bridge" : "network" });
  if (nic.mac) el.ele("mac", { address: nic.mac });
  el.ele("source", nic.direct ? { dev: nic.direct.dev, mode: nic.direct.mode } : nic.bridge ? { bridge: nic.bridge } : { network: nic.network ?? "default" });
  el.ele("model", { type: nic.model });
  if (nic.filter) el.ele("filterref", { filter: nic.filter });
}

/** One disk's <disk> element, for attaching it to a running domain. */
export function diskDeviceXml(d: DiskSpec, target: string): string {
  const root = create().ele("devices");
  disk(root, d, target);
  return root.first().toString();
}

/** One NIC's <interface> element, for attaching it to a running domain. */
export function interfaceDeviceXml(nic: InterfaceSpec): string {
  const root = create().ele("devices");
  networkInterface(root, nic);
  return root.first().toString();
}

/** A q35 machine type: "q35" or a versioned one ("pc-q35-7.2"). */
export const isQ35 = (machine: string | undefined) => machine !== undefined && (machine === "q35" || machine.startsWith("pc-q35-"));

/** How many disks and NICs a q35 domain can have attached live, beyond those it was defined with. */
const SPARE_ROOT_PORTS = 4;
/** The PCI devices beside disks and NICs that take a root port: SCSI and serial controllers, USB, balloon, RNG, and a bridge for a patch's conventional PCI device. */
const OTHER_PCI_DEVICES = 6;

export function domainXml(spec: DomainSpec): string {
  const dom = create().ele("domain", { type: spec.type });
  dom.ele("name").txt(spec.name);
  if (spec.uuid) dom.ele("uuid").txt(spec.uuid);
  dom.ele("metadata").ele(OWNER_NS, `${OWNER_PREFIX}:owner`).ele(OWNER_NS, `${OWNER_PREFIX}:resource`).txt(spec.owner);
  // the maximum is what qemu starts with; below it, the balloon and vCPU hotplug change the VM live
  dom.ele("memory", { unit: "MiB" }).txt(String(spec.maxMemoryMiB));
  dom.ele("currentMemory", { unit: "MiB" }).txt(String(spec.memoryMiB));
  dom.ele("vcpu", spec.maxVcpu > spec.vcpu ? { current: String(spec.vcpu) } : {}).txt(String(spec.maxVcpu));
  const os = dom.ele("os", spec.firmware === "uefi" ? { firmware: "efi" } : {});
  os.ele("type", { arch: "x86_64", ...(spec.machine ? { machine: spec.machine } : {}) }).txt("hvm");
  // secure boot only when asked: libvirt would otherwise pick the firmware with enrolled
  // keys on q35, which refuses any unsigned bootloader
  if (spec.firmware === "uefi") {
    const firmware = os.ele("firmware");
    firmware.ele("feature", { enabled: spec.secureBoot ? "yes" : "no", name: "secure-boot" });
    if (spec.secureBoot) firmware.ele("feature", { enabled: "yes", name: "enrolled-keys" });
  }
  if (spec.kernel) {
    os.ele("kernel").txt(spec.kernel);
    if (spec.initrd) os.ele("initrd").txt(spec.initrd);
    if (spec.cmdline) os.ele("cmdline").txt(spec.cmdline);
  }
  const features = dom.ele("features");
  features.ele("acpi");
  features.ele("apic");
  // the firmware's secure variable store is only safe from the guest's OS in SMM
  if (spec.secureBoot) features.ele("smm", { state: "on" });
  if (spec.cpuMode) dom.ele("cpu", { mode: spec.cpuMode });
  dom.ele("on_poweroff").txt("destroy");
  dom.ele("on_reboot").txt("restart");
  dom.ele("on_crash").txt("destroy");
  const devices = dom.ele("devices");
  // the seed sits on virtio-scsi: every cloud kernel has that driver, while Debian's
  // genericcloud kernel has no AHCI (a SATA cdrom is invisible to it) and q35 has no IDE
  const all = [...spec.disks, ...(spec.seedPath ? [{ path: spec.seedPath, format: "raw", device: "cdrom", bus: "scsi" } as DiskSpec] : [])];
  if (all.some((d) => d.bus === "scsi")) devices.ele("controller", { type: "scsi", index: "0", model: "virtio-scsi" });
  const targets = targetNames(all);
  // the boot order given, else the first disk boots, unless a kernel is given directly
  const ordered = spec.disks.some((d) => d.bootOrder !== undefined);
  all.forEach((d, i) => disk(devices, d, targets[i], spec.kernel ? undefined : ordered ? d.bootOrder : i === 0 ? 1 : undefined));
  for (const nic of spec.interfaces) networkInterface(devices, nic);
  // PCI Express has no hotplug slot of its own: a root port per device, and spare ones for the
  // disks and NICs attached live (given any PCI controller, libvirt wants the root complex stated)
  if (isQ35(spec.machine)) {
    devices.ele("controller", { type: "pci", index: "0", model: "pcie-root" });
    const ports = all.filter((d) => d.bus === "virtio").length + spec.interfaces.length + OTHER_PCI_DEVICES + SPARE_ROOT_PORTS;
    for (let i = 0; i < ports; i++) devices.ele("controller", { type: "pci", model: "pcie-root-port" });
  }
  devices.ele("serial", { type: "pty" }).ele("target", { port: "0" });
  devices.ele("console", { type: "pty" }).ele("target", { type: "serial", port: "0" });
  if (spec.qemuAgent) {
    const ch = devices.ele("channel", { type: "unix" });
    ch.ele("target", { type: "virtio", name: "org.qemu.guest_agent.0" });
  }
  if (spec.tpm) devices.ele("tpm", { model: spec.tpm.model }).ele("backend", { type: "emulator", version: spec.tpm.version });
  if (spec.graphics !== "none") devices.ele("graphics", { type: spec.graphics, autoport: "yes", listen: "127.0.0.1" });
  devices.ele("rng", { model: "virtio" }).ele("backend", { model: "random" }).txt("/dev/urandom");
  return applyPatches(dom.end({ headless: true }), spec.xmlPatches ?? []);
}

export interface ParsedDomain {
  name: string;
  uuid: string;
  type: string;
  /** vCPUs and memory now (a running VM's as it runs), and their ceilings. */
  vcpu: number;
  memoryMiB: number;
  maxVcpu: number;
  maxMemoryMiB: number;
  /** `backing`: the first link of the chain this definition spells out (written by us, not probed). */
  disks: { path: string; device: string; target: string; bus: string; format?: string; backing?: { path: string; format: string } }[];
  interfaces: { mac: string; network?: string; bridge?: string; direct?: string; model?: string; filter?: string }[];
  kernel?: string;
  /** UEFI when the OS asks for EFI firmware or names a loader (a pflash one, as virt-install writes). */
  firmware: "bios" | "uefi";
  /** Secure Boot asked for (the firmware feature) or a secure loader named (as virt-install writes). */
  secureBoot: boolean;
  machine?: string;
  /** An emulated TPM: its model and version (a passthrough one is not read). */
  tpm?: TpmSpec;
}

const KIB_PER: Record<string, number> = { KiB: 1, k: 1, MiB: 1024, M: 1024, GiB: 1024 * 1024, G: 1024 * 1024, b: 1 / 1024, bytes: 1 / 1024 };

function backingOf(disk: El): { path: string; format: string } | undefined {
  const path = at(disk, "backingStore/source@file");
  const format = at(disk, "backingStore/format@type");
  return path && format ? { path, format } : undefined;
}

function secureBootOf(root: El): boolean {
  const feature = children(node(root, "os/firmware"), "feature").find((f) => f.getAttribute("name") === "secure-boot");
  return feature ? feature.getAttribute("enabled") === "yes" : at(root, "os/loader@secure") === "yes";
}

function tpmOf(devices: El | undefined): TpmSpec | undefined {
  const tpm = children(devices, "tpm").find((t) => at(t, "backend@type") === "emulator");
  if (!tpm) return undefined;
  const version = at(tpm, "backend@version") === "1.2" ? "1.2" : "2.0";
  return { version, model: tpm.getAttribute("model") === "tpm-crb" ? "tpm-crb" : "tpm-tis" };
}

export function parseDomainXml(xml: string): ParsedDomain {
  const root = parseXml(xml);
  const devices = node(root, "devices");
  const mib = (el: string) => {
    const v = at(root, el);
    return v === undefined ? undefined : Math.round((Number(v) * (KIB_PER[at(root, `${el}@unit`) ?? "KiB"] ?? 1)) / 1024);
  };
  const maxVcpu = Number(at(root, "vcpu") ?? "0");
  const maxMemoryMiB = mib("memory") ?? 0;
  return {
    name: at(root, "name") ?? "",
    uuid: at(root, "uuid") ?? "",
    type: root.getAttribute("type") ?? "",
    vcpu: Number(at(root, "vcpu@current") ?? maxVcpu),
    memoryMiB: mib("currentMemory") ?? maxMemoryMiB,
    maxVcpu,
    maxMemoryMiB,
    disks: children(devices, "disk").map((d) => ({
      path: at(d, "source@file") ?? "",
      device: d.getAttribute("device") ?? "disk",
      target: at(d, "target@dev") ?? "",
      bus: at(d, "target@bus") ?? "",
      format: at(d, "driver@type"),
      backing: backingOf(d),
    })),
    interfaces: children(devices, "interface").map((i) => ({
      mac: at(i, "mac@address") ?? "",
      network: at(i, "source@network"),
      bridge: at(i, "source@bridge"),
      direct: i.getAttribute("type") === "direct" ? at(i, "source@dev") : undefined,
      model: at(i, "model@type"),
      filter: at(i, "filterref@filter"),
    })),
    kernel: at(root, "os/kernel"),
    firmware: at(root, "os@firmware") === "efi" || at(root, "os/loader@type") === "pflash" ? "uefi" : "bios",
    secureBoot: secureBootOf(root),
    machine: at(root, "os/type@machine"),
    tpm: tpmOf(devices),
  };
}
