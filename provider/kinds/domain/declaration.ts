// The Domain's properties, declared once (properties.ts): what a redefinition and one
// graceful restart apply, what applies to the running VM, what replaces it.
import { deepEqual } from "../../resources/deep-equal";
import { devicesNeedRestart } from "./devices";
import type { DiskInput, DomainInputs, DomainOutputs, InterfaceInput } from "./types";
import type { CloudInit } from "../../iso/seed";
import type { XmlPatch } from "../../xml/domain-patches";
import { choice, Defined, Element, FORMAT, ObjectType } from "../../resources/object-types";
import { DISK_CACHES, DISK_DISCARDS } from "../../xml/domain";

import { adoptProperty, Declaration, hostProperty, nameProperty, resourceNameProperty } from "../../resources/properties";

/** A disk's format and base only confirm its volume's (older records lack them): not compared. */
const definedDisks = (d: DomainInputs) =>
  Array.isArray(d.disks) ? d.disks.map(({ format: _format, backing: _backing, identity: _identity, ...disk }) => disk) : d.disks;

const LIVE_DEVICES_DOC =
  "anything but adding or removing a disk (not the boot disk; an added one a virtio disk without a bootOrder) or a NIC, which attach and detach on the running VM";

const disk: ObjectType<DiskInput> = {
  doc: "A disk of a Domain",
  fields: {
    volume: {
      type: "Volume | Image | string",
      doc: "the volume: a Volume or Image (its format, base and identity come along), or a volume's name",
      required: true,
    },
    pool: { type: "string", doc: 'the pool of the volume (default "default")' },
    device: { type: '"disk" | "cdrom"', doc: '"disk" (default) or "cdrom"' },
    bus: { type: '"virtio" | "sata" | "scsi" | "ide"', doc: '"virtio" (default; a cdrom: "sata")' },
    format: { type: FORMAT, doc: "the volume's format (a Volume's `format` output): never read from the file" },
    backing: { type: "Backing", doc: "a qcow2 overlay's base (a Volume's `backing` output): an overlay given without it is refused" },
    bootOrder: { type: "integer", doc: "its place in the boot order, 1 first (default: the first disk boots)" },
    cache: { type: choice(DISK_CACHES), doc: "qemu's cache mode (libvirt's default when absent)" },
    discard: { type: choice(DISK_DISCARDS), doc: '"unmap" passes the guest\'s TRIM/discard on to the volume' },
    serial: { type: "string", doc: "the serial number the guest sees (up to 20 letters, digits, _ . + -)" },
    readonly: { type: "boolean", doc: "attached read-only (default false)" },
    identity: {
      type: "VolumeIdentity",
      doc: "what proves the volume is the Volume the stack made (a Volume's identity, passed by the TypeScript SDK): a volume found under the name that is not it is refused",
      bySdk: true,
    },
  },
};

const directInterface: ObjectType<Defined<InterfaceInput["direct"]>> = {
  doc: "macvtap on a host device",
  fields: {
    dev: { type: "string", doc: "the host device", required: true },
    mode: { type: '"bridge" | "vepa" | "private" | "passthrough"', doc: '"bridge" (default): the host itself cannot reach the guest through it' },
  },
};

const networkInterface: ObjectType<InterfaceInput> = {
  doc: "A NIC of a Domain: one of a libvirt network, a host bridge or a host device",
  fields: {
    network: { type: "string", doc: 'a libvirt network (default "default" when neither bridge nor direct is given)' },
    bridge: { type: "string", doc: "a host bridge instead of a network" },
    direct: { type: "DirectInterface", doc: "macvtap on a host device instead of a network" },
    mac: { type: "string", doc: "a fixed MAC; otherwise libvirt picks one, kept across updates" },
    model: { type: "string", doc: 'the NIC model (default "virtio")' },
    filter: { type: "NetworkFilter | string", doc: "a NetworkFilter (or a network filter's name) whose rules libvirt applies to the NIC's traffic" },
  },
};

const tpm: ObjectType<Defined<DomainInputs["tpm"]>> = {
  doc: "An emulated TPM, run by swtpm on the host; its state is kept across restarts and updates and removed with the domain",
  fields: {
    version: { type: '"2.0" | "1.2"', doc: '"2.0" (default; Windows 11 and measured boot need it) or "1.2"' },
    model: { type: '"tpm-crb" | "tpm-tis"', doc: '"tpm-crb" (default for 2.0) or "tpm-tis" (the only one for 1.2)' },
  },
};

const xmlPatch: ObjectType<XmlPatch> = {
  doc: "A change to the domain XML pulumi-kvm builds: one of add, set or remove at the nodes xpath selects",
  fields: {
    xpath: { type: "string", doc: 'an XPath selecting elements or attributes, e.g. "/domain/devices"', required: true },
    add: { type: "string", doc: "an XML fragment appended as the last child of each selected element" },
    set: { type: "string", doc: "the new value of each selected attribute, or the new text of each selected element" },
    remove: { type: "boolean", doc: "true: the selected nodes are removed" },
  },
};

const cloudInit: ObjectType<CloudInit> = {
  doc: "A NoCloud seed; stored as a secret whenever any part is given",
  fields: {
    userData: { type: "string", doc: "user-data" },
    vendorData: { type: "string", doc: "vendor-data, merged by cloud-init under user-data" },
    metaData: { type: "string", doc: "extra meta-data lines (instance-id and local-hostname are set by pulumi-kvm)" },
    networkConfig: { type: "string", doc: "network-config, v1 or v2" },
    hostname: { type: "string", doc: "local-hostname (default: the domain name)" },
  },
};

const waitForIp: ObjectType<Defined<DomainInputs["waitForIp"]>> = {
  doc: "How create waits for an address of the VM's boot",
  fields: {
    timeout: { type: "string", doc: 'e.g. "5m" (default)' },
    source: { type: '"lease" | "agent" | "arp" | "any"', doc: '"any" (default: lease or agent), "lease", "agent", or "arp" (the host\'s ARP table)' },
    family: { type: '"ipv4" | "ipv6" | "any"', doc: '"ipv4" (default), "ipv6" or "any"' },
  },
};

const interfaceState: ObjectType<Element<DomainOutputs["interfaces"]>> = {
  doc: "A NIC as the host reports it",
  fields: {
    mac: { type: "string", doc: "its MAC", required: true },
    network: { type: "string", doc: "its network, or bridge:NAME, direct:DEV", required: true },
    addresses: { type: "string[]", doc: "its addresses", required: true },
  },
};

export const domainDeclaration: Declaration<DomainInputs, DomainOutputs> = {
  kind: "Domain",
  doc: "A KVM virtual machine: its CPUs, memory, disks and NICs, a cloud-init seed, and its power state",
  namedBy: ["name"],
  outputs: {
    uuid: { type: "string", doc: "the domain's UUID, its identity" },
    state: { type: "string", doc: 'libvirt\'s state: `"running"`, `"shutoff"`, …' },
    interfaces: { type: "InterfaceState[]", doc: "each NIC's MAC, its network (or `bridge:NAME`, `direct:DEV`) and its addresses" },
    ipAddress: { type: "string", doc: "the first non-loopback, non-link-local address of the wanted family", optional: true },
    seedVolume: { type: "string", doc: "the cloud-init seed volume, when there is one", optional: true },
    seedPool: { type: "string", doc: "the pool of the seed volume", optional: true },
    seedIdentity: { type: "object", doc: "what proves the seed volume is the one made", internal: true, optional: true },
    imported: { type: "boolean", doc: "made outside Pulumi and imported: proven by its UUID, without pulumi-kvm's marker", internal: true, optional: true },
  },
  properties: {
    host: hostProperty(
      "moves the VM there in an update, keeping its UUID, MACs, disks' contents and seed: live (libvirt's migration; the guest is not restarted) when it runs, its disks copied onto the Volumes of the same names made there first (give the Image and Volumes the new host too); the streams go to the new host's `migrationAddress`. A shut-off VM moves the same way, started paused (its CPUs never run) and shut off again there. Afterwards each NIC's link drops for 2 s so the guest asks the new host's network for a lease. A move that fails leaves the VM where it was. Another user on the same machine is only recorded",
    ),
    name: nameProperty("the domain's name on the host"),
    resourceName: resourceNameProperty(),
    type: { type: '"kvm" | "qemu"', doc: '`"qemu"` for software emulation (hosts without `/dev/kvm`)', default: "kvm", change: "replace" },
    vcpu: { type: "integer", doc: "virtual CPUs; up to `maxVcpu` they are plugged into and out of the running VM", default: 1, change: "live" },
    memory: {
      type: 'number | string ("2GiB", or MiB)',
      doc: '`"2GiB"` or a number of MiB; up to `maxMemory` the running VM\'s balloon gives it or takes it back',
      default: 512,
      change: "live",
    },
    maxVcpu: {
      type: "integer",
      doc: "the most vCPUs `vcpu` can be raised to without a restart",
      defaultDoc: "`vcpu`",
      change: "restart",
      same: (o, n) => (o.maxVcpu ?? o.vcpu ?? 1) === (n.maxVcpu ?? n.vcpu ?? 1),
    },
    maxMemory: {
      type: 'number | string ("4GiB", or MiB)',
      doc: "the most memory `memory` can be raised to without a restart (qemu reserves it as the VM's size; the guest sees what the balloon leaves)",
      defaultDoc: "`memory`",
      change: "restart",
      same: (o, n) => Number(o.maxMemory ?? o.memory ?? 512) === Number(n.maxMemory ?? n.memory ?? 512),
    },
    restartPolicy: {
      type: '"allowed" | "never"',
      doc: '`"never"`: a change that needs a restart fails the preview (naming the properties) instead of restarting the VM',
      default: "allowed",
      change: "record",
    },
    firmware: {
      type: '"bios" | "uefi"',
      doc: "`\"uefi\"`: libvirt picks OVMF **without secure boot** unless `secureBoot` is set (on `q35` too, where libvirt would otherwise pick the firmware with Microsoft's keys enrolled, which refuses unsigned bootloaders) and creates the VM's NVRAM at its first start. The NVRAM (EFI variables, boot entries) is kept across updates and removed with the domain. Needs OVMF on the host (Debian: `ovmf`)",
      default: "bios",
      change: "replace",
    },
    secureBoot: {
      type: "boolean",
      doc: "`true` (with `firmware: \"uefi\"`): OVMF with Secure Boot and the distribution's keys enrolled (Microsoft's, so shim-signed distributions such as Debian and Ubuntu boot and unsigned bootloaders do not), picked by libvirt; SMM is turned on. It needs a `q35` machine, the default when `secureBoot` is set. The NVRAM is kept and removed as for UEFI. `check` says when the host's firmware offers no Secure Boot",
      default: false,
      change: "replace",
    },
    machine: {
      type: "string",
      doc: 'the machine type, e.g. `"q35"`; a q35 domain gets 4 spare PCI Express root ports, so up to 4 disks or NICs can be attached to it live',
      defaultDoc: 'libvirt\'s; `"q35"` with `secureBoot`',
      change: "replace",
    },
    tpm: {
      type: "Tpm",
      doc: '`{ version?: "2.0" | "1.2", model?: "tpm-crb" | "tpm-tis" }`: an emulated TPM (defaults: 2.0 on `tpm-crb`; 1.2 on `tpm-tis`), run by swtpm on the host. Its state (keys, measurements) is kept across restarts and updates and removed with the domain. `check` says when the host has no swtpm (Debian: `apt install swtpm`)',
      defaultDoc: "none",
      change: "restart",
    },
    xmlPatches: {
      type: "XmlPatch[]",
      doc: "`[{ xpath, add?, set?, remove? }]`: changes to the domain XML pulumi-kvm builds, applied in order at create and at every redefinition, for what the Domain has no input for (a watchdog, a USB controller, a host device). Each patch has one of `add` (an XML fragment appended as the last child of each selected element), `set` (the value of each selected attribute, or the text of each selected element) or `remove: true`. A patch that selects nothing, or changes what pulumi-kvm manages (the name, UUID, its ownership marker, disks, the seed, NICs), fails the preview naming it; XML libvirt refuses fails with libvirt's words. Example: `{ xpath: \"/domain/devices\", add: \"<watchdog model='i6300esb' action='reset'/>\" }`",
      default: [],
      change: "restart",
    },
    cpuMode: { type: "string", doc: 'e.g. `"host-passthrough"`', defaultDoc: "libvirt's", change: "restart" },
    disks: {
      type: "Disk[]",
      doc: '`[{ volume: Volume | Image | name, pool?, device?: "disk" | "cdrom", bus?: "virtio" | "sata" | "scsi" | "ide", format?: "qcow2" | "raw", bootOrder?, cache?, discard?, serial?, readonly? }]`; boots from the first disk unless `kernel` is given or disks have a `bootOrder` (1 first, each its own). `cache`: qemu\'s cache mode (`"none"`, `"writeback"`, …); `discard: "unmap"` passes the guest\'s TRIM on to the volume; `serial` (up to 20 letters, digits, `_ . + -`) is what the guest sees in `/dev/disk/by-id`; `readonly: true` attaches it read-only. `format` comes from a Volume or Image given as `volume`, and is **required for a volume given by name**; `backing` (`{ path, format }`, a Volume\'s `backing` output) is a qcow2 overlay\'s base, brought by a Volume given as `volume`: a qcow2 overlay given by name without it is refused, since its base is never read from the file ([what the provider trusts](#what-the-provider-trusts)); a qcow2 Volume given as `volume` brings its `identity` too, and a volume found under its name that is not that Volume (removed and made again by someone else) is refused. A user cdrom defaults to `sata`, which installers and firmware boot menus expect (the seed is on `scsi`, which every cloud kernel reads); Debian\'s genericcloud kernel has no AHCI, so give `bus: "scsi"` for a cdrom such a guest must read',
      required: true,
      change: "live",
      same: (o, n) => deepEqual(definedDisks(o), definedDisks(n)),
      restartWhen: { doc: LIVE_DEVICES_DOC, test: devicesNeedRestart },
    },
    networkInterfaces: {
      type: "NetworkInterface[]",
      doc: '`[{ network?: string, bridge?: string, direct?: { dev, mode? }, mac?: string, model?: "virtio", filter?: NetworkFilter }]`: one of a libvirt network (default `"default"`), a host bridge (`"br0"`), or `direct`: macvtap on a host device (`{ dev: "eth0", mode: "bridge" (default) | "vepa" | "private" | "passthrough" }`; in bridge mode the host itself cannot reach the guest through that device, other machines on its LAN can). An interface keeps its MAC across changes (by its network, not its position)',
      default: [],
      change: "live",
      restartWhen: { doc: LIVE_DEVICES_DOC, test: devicesNeedRestart },
    },
    cloudInit: {
      type: "CloudInit",
      doc: "a NoCloud seed (an ISO 9660 image labelled `cidata`, written in pure TypeScript) is uploaded as the volume `<name>-seed.iso` and attached as a cdrom on virtio-scsi (a driver every cloud kernel has): `user-data`, `vendor-data` (only when given; cloud-init merges it under user-data: for the same cloud-config key, user-data wins, so a vendor `runcmd` beside a user `runcmd` is a shell script part instead), `network-config` (v1 or v2, e.g. DHCP on one NIC and a static address on another, matched by a pinned `mac`). `meta-data` gets `instance-id` (random, new for each seed: nothing in it is derived from your data) and `local-hostname` (default: the domain name). The whole `cloudInit` is a secret whenever any part is given. A change writes a new seed (a new instance-id) and restarts the VM, so cloud-init runs again with the new data; UUID, MACs and disks stay, the old seed volume goes",
      defaultDoc: "none",
      secret: true,
      change: "restart",
    },
    kernel: { type: "string", doc: "direct kernel boot: the kernel's path on the host", change: "restart" },
    initrd: { type: "string", doc: "with `kernel`: the initrd's path on the host", change: "restart" },
    cmdline: { type: "string", doc: "with `kernel`: the kernel command line", change: "restart" },
    running: {
      type: "boolean",
      doc: "enforced on every create and update; `refresh` reads it back, so a VM stopped out of band shows as drift and the next `up` starts it",
      default: true,
      change: "live",
    },
    autostart: { type: "boolean", doc: "started with the host", default: false, change: "live" },
    qemuAgent: {
      type: "boolean",
      doc: 'adds the guest agent channel (`org.qemu.guest_agent.0`); with `qemu-guest-agent` in the guest (Debian and Ubuntu cloud images), `waitForIp: { source: "agent" }` reads the addresses the guest itself reports, also on NICs without a libvirt DHCP lease',
      default: false,
      change: "restart",
    },
    graphics: {
      type: '"none" | "vnc" | "spice"',
      doc: '`"vnc"` / `"spice"` on the host\'s 127.0.0.1, **without a password**: anyone with a shell on the host can open the console; reach it through an SSH tunnel',
      default: "none",
      change: "restart",
    },
    waitForIp: {
      type: "boolean | WaitForIp",
      doc: '`true` or `{ timeout?: "5m", source?: "lease" | "agent" | "arp" | "any" (default: lease or agent), family?: "ipv4" (default) | "ipv6" | "any" }`: create (and an update that starts the VM) waits for an address of this boot. Bridge and direct NICs have no libvirt lease: use `"agent"` (with `qemuAgent`) or `"arp"` (the host\'s ARP table; `check` says so)',
      change: "record",
    },
    shutdownTimeout: { type: "string", doc: "bound on the graceful (ACPI) shutdown before the domain is destroyed", default: "60s", change: "record" },
    adopt: adoptProperty("a domain of that name made outside Pulumi"),
  },
  types: {
    Disk: disk,
    NetworkInterface: networkInterface,
    DirectInterface: directInterface,
    CloudInit: cloudInit,
    Tpm: tpm,
    XmlPatch: xmlPatch,
    WaitForIp: waitForIp,
    InterfaceState: interfaceState,
  },
};
