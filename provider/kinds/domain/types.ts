// A Domain's inputs and outputs: their shape alone, which the declaration, the checks and
// the device changes all read (so none of them imports another for a type).
import type { CloudInit } from "../../iso/seed";
import type { HostConfig } from "../../ssh/host";
import type { DiskOptions, DiskSpec } from "../../xml/domain";
import type { XmlPatch } from "../../xml/domain-patches";
import type { IpFamily, IpSource } from "./ip";
import type { VolumeIdentity } from "../volume/identity";

export interface DiskInput extends DiskOptions {
  /** Volume name (a Volume's or Image's name). */
  volume: string;
  pool?: string;
  device?: "disk" | "cdrom";
  bus?: DiskSpec["bus"];
  /**
   * The volume's format as its Volume or Image recorded it (the SDK passes it), or as the
   * program declares it for a volume given by name: never probed from the file, whose
   * header a guest may have written. Required.
   */
  format?: "qcow2" | "raw";
  /** An overlay's base as its Volume recorded it (the SDK passes it); a disk given by name has none. */
  backing?: { path: string; format: "qcow2" | "raw" };
  /** What proves the volume is the Volume the stack made (the SDK passes a qcow2 Volume's); a disk given by name has none. */
  identity?: VolumeIdentity;
}

export const DIRECT_MODES = ["bridge", "vepa", "private", "passthrough"] as const;

export interface InterfaceInput {
  network?: string;
  bridge?: string;
  /** macvtap on a host device: the guest shares the device's LAN (the host itself cannot reach it in bridge mode). */
  direct?: { dev: string; mode?: (typeof DIRECT_MODES)[number] };
  mac?: string;
  model?: string;
  /** The name of the filter whose rules libvirt applies to the NIC's traffic (its <filterref>). */
  filter?: string;
}

export interface DomainInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
  type?: "kvm" | "qemu";
  vcpu?: number;
  /** MiB after check ("2GiB" or a number of MiB before). */
  memory?: number | string;
  /** The ceiling vcpu can be changed up to on the running VM (check fills in vcpu). */
  maxVcpu?: number;
  /** The ceiling memory can be changed up to on the running VM, MiB after check (check fills in memory). */
  maxMemory?: number | string;
  /** "never": a change that needs a restart fails the preview instead. */
  restartPolicy?: "allowed" | "never";
  firmware?: "bios" | "uefi";
  /** UEFI Secure Boot with the distribution's keys enrolled (firmware "uefi", a q35 machine). */
  secureBoot?: boolean;
  /** An emulated TPM (swtpm on the host); check fills in its version and model. */
  tpm?: { version?: "2.0" | "1.2"; model?: "tpm-crb" | "tpm-tis" };
  /** Changes to the domain XML the provider builds, applied in order at every definition. */
  xmlPatches?: XmlPatch[];
  /** Take over a domain of this name that exists on the host. */
  adopt?: boolean;
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
  /** The NoCloud seed volume and its pool, recorded at create (disks may move later). */
  seedVolume?: string;
  seedPool?: string;
  /** What proves the seed volume is the one made (volume-identity.ts). */
  seedIdentity?: VolumeIdentity;
  /** Imported (`pulumi import`): made by hand, proven by its UUID alone, with no ownership marker. */
  imported?: boolean;
}

/** What a create recorded of the seed volume, which the delete removes. */
export type SeedRecord = Pick<DomainOutputs, "seedVolume" | "seedPool" | "seedIdentity">;
