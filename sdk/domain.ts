import * as pulumi from "@pulumi/pulumi";
import { HostArgs } from "./host";
import { Image } from "./image";
import { providerShim } from "./shim";
import { MODULE, registered, withLegacyAlias } from "./resource-type";
import { Volume } from "./volume";

export interface DiskArgs {
  /** A Volume (or Image), or the name of a volume. */
  volume: Volume | Image | pulumi.Input<string>;
  /** Pool of a volume given by name (default "default"). */
  pool?: pulumi.Input<string>;
  /** "disk" (default) or "cdrom". */
  device?: pulumi.Input<"disk" | "cdrom">;
  /** "virtio" (default; a cdrom: "sata"), "sata", "scsi" or "ide". */
  bus?: pulumi.Input<"virtio" | "sata" | "scsi" | "ide">;
  /**
   * The volume's format: required for a volume given by name, taken from a Volume or Image
   * given as `volume`. Never read from the file (a guest can write any header into its disk).
   */
  format?: pulumi.Input<"qcow2" | "raw">;
  /**
   * A qcow2 overlay's base, for an overlay given by name: a Volume's `backing` output (a
   * Volume given as `volume` brings it). Without one, a qcow2 volume given by name must
   * stand alone: an overlay given by name alone is refused, since its base is never read
   * from the file.
   */
  backing?: pulumi.Input<{ path: pulumi.Input<string>; format: pulumi.Input<"qcow2" | "raw"> }>;
  /** Its place in the boot order, 1 first (default: the first disk boots). */
  bootOrder?: pulumi.Input<number>;
  /** qemu's cache mode (libvirt's default when absent). */
  cache?: pulumi.Input<"default" | "none" | "writethrough" | "writeback" | "directsync" | "unsafe">;
  /** "unmap" passes the guest's TRIM/discard on to the volume. */
  discard?: pulumi.Input<"unmap" | "ignore">;
  /** The serial number the guest sees (up to 20 letters, digits, _ . + -). */
  serial?: pulumi.Input<string>;
  /** Attached read-only (default false). */
  readonly?: pulumi.Input<boolean>;
}

export interface NetworkInterfaceArgs {
  /** A libvirt network (default "default" when neither bridge nor direct is given); a Network's `name` orders the domain after it. */
  network?: pulumi.Input<string>;
  /** A host bridge instead of a network. */
  bridge?: pulumi.Input<string>;
  /** macvtap on a host device (mode "bridge" by default); the host itself cannot reach the guest in bridge mode. */
  direct?: pulumi.Input<{ dev: pulumi.Input<string>; mode?: pulumi.Input<"bridge" | "vepa" | "private" | "passthrough"> }>;
  /** Fixed MAC; otherwise libvirt picks one, kept across updates. */
  mac?: pulumi.Input<string>;
  /** The NIC model (default "virtio"). */
  model?: pulumi.Input<string>;
}

/** The NoCloud seed; stored as a secret whenever any part is given. */
export interface CloudInitArgs {
  /** user-data. */
  userData?: pulumi.Input<string>;
  /** vendor-data: what a platform adds, merged by cloud-init under user-data. */
  vendorData?: pulumi.Input<string>;
  /** Extra meta-data lines; instance-id and local-hostname are set by pulumi-kvm. */
  metaData?: pulumi.Input<string>;
  /** network-config, v1 or v2. */
  networkConfig?: pulumi.Input<string>;
  /** local-hostname (default: the domain name). */
  hostname?: pulumi.Input<string>;
}

export interface WaitForIpArgs {
  /** e.g. "5m" (default). */
  timeout?: pulumi.Input<string>;
  /** "any" (default: lease or agent), "lease", "agent", or "arp" (the host's ARP table: bridge and direct NICs). */
  source?: pulumi.Input<"lease" | "agent" | "arp" | "any">;
  /** "ipv4" (default), "ipv6" or "any". */
  family?: pulumi.Input<"ipv4" | "ipv6" | "any">;
}

export interface DomainArgs {
  /** The libvirt host and how to log in (docs/connection.md). Another address, port, user, socket or URI replaces the resource; a login change is only recorded. */
  host: pulumi.Input<HostArgs>;
  /** Domain name (default: the resource name). A change replaces. */
  name?: pulumi.Input<string>;
  /** "kvm" (default) or "qemu" (software emulation). A change replaces. */
  type?: pulumi.Input<"kvm" | "qemu">;
  /** Virtual CPUs (default 1). Up to maxVcpu a change is applied in place, to the running VM (vCPU hotplug) and its definition. */
  vcpu?: pulumi.Input<number>;
  /** "2GiB" or a number of MiB (default 512). Up to maxMemory a change is applied in place, through the running VM's balloon. */
  memory?: pulumi.Input<string | number>;
  /** The most vCPUs vcpu can be raised to without a restart (default: vcpu). A change redefines the VM and restarts it (one graceful restart). */
  maxVcpu?: pulumi.Input<number>;
  /** "4GiB" or MiB: the most memory can be raised to without a restart (default: memory). A change redefines the VM and restarts it (one graceful restart). */
  maxMemory?: pulumi.Input<string | number>;
  /** "never": a change that needs a restart fails the preview instead (default "allowed"); only recorded. */
  restartPolicy?: pulumi.Input<"allowed" | "never">;
  /** "bios" (default) or "uefi" (OVMF without secure boot). A change replaces. */
  firmware?: pulumi.Input<"bios" | "uefi">;
  /** Machine type, e.g. "q35" (default: libvirt's). A change replaces. */
  machine?: pulumi.Input<string>;
  /** CPU mode, e.g. "host-passthrough" (default: libvirt's). A change redefines the VM and restarts it (one graceful restart). */
  cpuMode?: pulumi.Input<string>;
  /**
   * Boots from the first disk unless kernel is given. An array, or an Output of one. Adding or
   * removing a disk (not the boot disk; an added one a virtio disk without bootOrder) is applied
   * in place, attached to or detached from the running VM; any other change redefines the VM and
   * restarts it (one graceful restart).
   */
  disks: pulumi.Input<DiskArgs[]>;
  /**
   * An array, or an Output of one (e.g. from `pulumi.all(...).apply(...)`); each keeps its MAC.
   * Adding or removing a NIC is applied in place, on the running VM; any other change redefines
   * the VM and restarts it (one graceful restart).
   */
  networkInterfaces?: pulumi.Input<pulumi.Input<NetworkInterfaceArgs>[]>;
  /** The NoCloud seed, a secret. A change writes a new seed (a new instance-id) and restarts the VM (one graceful restart), so cloud-init runs again; UUID, MACs and disks stay. */
  cloudInit?: pulumi.Input<CloudInitArgs>;
  /** Direct kernel boot: the kernel's path on the host. A change redefines the VM and restarts it (one graceful restart). */
  kernel?: pulumi.Input<string>;
  /** With kernel: the initrd's path on the host. A change redefines the VM and restarts it (one graceful restart). */
  initrd?: pulumi.Input<string>;
  /** With kernel: the kernel command line. A change redefines the VM and restarts it (one graceful restart). */
  cmdline?: pulumi.Input<string>;
  /** Default true; enforced on every update and refreshed by read; changes in place. */
  running?: pulumi.Input<boolean>;
  /** Started with libvirtd (default false); changes in place. */
  autostart?: pulumi.Input<boolean>;
  /** Adds the guest agent channel (default false). A change redefines the VM and restarts it (one graceful restart). */
  qemuAgent?: pulumi.Input<boolean>;
  /** "none" (default), "vnc" or "spice" on the host's 127.0.0.1, without a password. A change redefines the VM and restarts it (one graceful restart). */
  graphics?: pulumi.Input<"none" | "vnc" | "spice">;
  /** Wait for an address of this boot after create (and an update that starts the VM); only recorded. */
  waitForIp?: pulumi.Input<boolean | WaitForIpArgs>;
  /** Graceful ACPI shutdown bound before destroy (default "60s"); only recorded. */
  shutdownTimeout?: pulumi.Input<string>;
  /** Take over a domain of this name that already exists on the host (docs/resources.md, "Adopting"); only recorded. */
  adopt?: pulumi.Input<boolean>;
}

export interface InterfaceState {
  mac: string;
  network: string;
  addresses: string[];
}

/** A KVM virtual machine. */
export class Domain extends pulumi.dynamic.Resource {
  public readonly name!: pulumi.Output<string>;
  public readonly uuid!: pulumi.Output<string>;
  public readonly state!: pulumi.Output<string>;
  public readonly running!: pulumi.Output<boolean>;
  public readonly vcpu!: pulumi.Output<number>;
  /** MiB. */
  public readonly memory!: pulumi.Output<number>;
  public readonly interfaces!: pulumi.Output<InterfaceState[]>;
  /** The first non-loopback, non-link-local address of the wanted family. */
  public readonly ipAddress!: pulumi.Output<string | undefined>;
  public readonly host!: pulumi.Output<HostArgs>;

  constructor(name: string, args: DomainArgs, opts?: pulumi.CustomResourceOptions) {
    // A plain array keeps each disk's inputs apart, so a preview shows which one changed.
    const disks = Array.isArray(args.disks)
      ? args.disks.map(diskInput)
      : pulumi.output(args.disks).apply((list) => pulumi.all((list as unknown as DiskArgs[]).map(diskInput)));
    const cloudInit =
      args.cloudInit === undefined
        ? undefined
        : pulumi.output(args.cloudInit).apply((c: any) => (c && Object.values(c).some((v) => v !== undefined) ? pulumi.secret(c) : c));
    super(
      providerShim,
      name,
      registered("Domain", name, args, ["uuid", "state", "interfaces", "ipAddress", "seedVolume", "seedPool", "running", "vcpu", "memory"], {
        disks,
        cloudInit,
      }),
      withLegacyAlias(opts),
      MODULE,
      "Domain",
    );
  }
}

/** A disk as stored: a Volume or Image given as `volume` becomes its name, pool, format and base, as recorded. */
function diskInput(d: DiskArgs) {
  const made = d.volume instanceof Volume || d.volume instanceof Image ? d.volume : undefined;
  // a Volume's identity goes along (an Image's mtime would not hold for one written as a disk)
  const recorded = d.volume instanceof Volume ? { backing: d.volume.diskBacking, identity: d.volume.identity } : {};
  return { ...d, ...recorded, volume: made ? made.name : (d.volume as pulumi.Input<string>), pool: d.pool ?? made?.pool, format: d.format ?? made?.format };
}
