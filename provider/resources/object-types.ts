// The structured values of the kinds' properties (a host, a disk, a NIC, …), declared once:
// each field's type and what it is. Declarations name them in their types ("Host",
// "Disk[]", "boolean | WaitForIp"); the provider plugin's schema makes each a type of its
// own, so every language's SDK has it typed. Each is a mapped type over the provider's own
// interface: a field forgotten here is a compile error.
import type { HostConfig } from "../ssh/host";
import type { ImageSource } from "../image/source";
import type { VolumeIdentity } from "../kinds/volume/identity";
import { urlHasSecrets } from "../image/url-secrets";
import type { CloudInit } from "../iso/seed";
import type { DhcpHost } from "../xml/network";
import type { FilterRule } from "../xml/network-filter";
import type { XmlPatch } from "../xml/domain-patches";
import type { DiskInput, DomainInputs, DomainOutputs, InterfaceInput } from "../kinds/domain/inputs";
import type { NetworkInputs } from "../kinds/network/inputs";

export interface Field {
  /** As in a declaration: a primitive (integer where only whole numbers do), a choice of strings, or another object type's name. */
  type: string;
  doc: string;
  required?: boolean;
  secret?: boolean;
  /** Filled by the TypeScript SDK from a resource given instead of a name, not written by users. */
  bySdk?: boolean;
  /** Secret by its value (a URL with credentials): the object holding it is stored as a secret then. */
  secretWhen?: (value: unknown) => boolean;
}

export interface ObjectType<T> {
  doc: string;
  fields: { readonly [K in keyof Required<T>]: Field };
}

type Defined<T> = Exclude<T, undefined | boolean>;
type Element<T> = T extends readonly (infer E)[] ? E : never;

const FORMAT = '"qcow2" | "raw"';

const host: ObjectType<HostConfig> = {
  doc: "How to reach a libvirt host over SSH (docs/connection.md)",
  fields: {
    address: { type: "string", doc: "host name, IP address, or a Host alias of ~/.ssh/config", required: true },
    port: { type: "integer", doc: "SSH port (default: ~/.ssh/config's Port, else 22)" },
    user: { type: "string", doc: "login user (default: ~/.ssh/config's User, else the local user)" },
    privateKeyPath: { type: "string", doc: 'a private key file; "~/" and relative paths resolved where each operation runs' },
    privateKey: { type: "string", doc: "private key text; the host is stored as a secret", secret: true },
    passphrase: { type: "string", doc: "passphrase of the key; the host is stored as a secret", secret: true },
    agent: { type: "boolean | string", doc: "true: the agent at SSH_AUTH_SOCK; a string: that agent socket" },
    knownHostsPath: { type: "string", doc: "where host keys are verified (default ~/.ssh/known_hosts)" },
    hostKeyFingerprint: { type: "string", doc: 'pins the host key ("SHA256:…", as ssh-keygen -lf prints it) instead of known_hosts' },
    strictHostKeyChecking: { type: "boolean", doc: "false disables host key verification (throwaway labs only)" },
    socketPath: { type: "string", doc: "libvirtd's socket on the host (default /var/run/libvirt/libvirt-sock)" },
    uri: { type: "string", doc: "the hypervisor URI opened on the host (default qemu:///system)" },
    sshConfigPath: { type: "string", doc: 'the ssh_config to read (default ~/.ssh/config); "none" ignores it' },
    connectTimeout: { type: "number", doc: "seconds for the SSH and the libvirt handshake (default 20)" },
    keepaliveInterval: { type: "number", doc: "seconds between keepalives (default 5): a link silent for interval × (count + 1) seconds is redialled" },
    keepaliveCount: { type: "integer", doc: "keepalives that may go unanswered (default 3)" },
    migrationAddress: {
      type: "string",
      doc: "where a Domain moving to this host sends its memory and disks: an address of this host that the old host reaches (default `address`); the streams go host to host, not through SSH",
    },
  },
};

const urlWithCredentials = (v: unknown) => typeof v === "string" && urlHasSecrets(v);

const imageSource: ObjectType<ImageSource> = {
  doc: "Where an Image's bytes come from (exactly one of url and path), and the checksum they must have (at most one)",
  fields: {
    url: {
      type: "string",
      doc: "an http(s) URL, streamed to the host while it downloads (nothing staged on disk; see Downloads). Exactly one of `url` and `path`. With credentials in it (`user:password@`, or a query such as a signed token) the source is stored as a secret",
      secretWhen: urlWithCredentials,
    },
    path: { type: "string", doc: "a local file" },
    sha256: {
      type: "string",
      doc: "for a local file: verified in `check` (so `pulumi preview` fails on a mismatch), and again on the bytes the upload sent. For a URL: verified as the bytes arrive. On a mismatch the volume they went into is deleted and the create fails",
    },
    sha512: {
      type: "string",
      doc: "the same with a sha512, as Debian publishes them (`SHA512SUMS`). At most one of `sha256`, `sha512`, `checksumUrl`",
    },
    checksumUrl: {
      type: "string",
      doc: "an http(s) URL of a `SHA256SUMS` or `SHA512SUMS` file (GNU `HEX  NAME` / `HEX *NAME` lines, or BSD `SHA512 (NAME) = HEX`): `check` fetches it (at most 1 MiB) and takes the line of the image's file name as its `sha256` or `sha512`, failing on `source.checksumUrl` when there is none. The checksum file's own integrity is yours to choose: an https URL of the distribution's site, or a `sha512` pinned in the program. With credentials in it the source is stored as a secret",
      secretWhen: urlWithCredentials,
    },
  },
};

const backing: ObjectType<Defined<DiskInput["backing"]>> = {
  doc: "A qcow2 overlay's base: the path of its backing file and that file's format",
  fields: {
    path: { type: "string", doc: "the base's path on the host", required: true },
    format: { type: FORMAT, doc: "the base's format", required: true },
  },
};

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
    cache: { type: '"default" | "none" | "writethrough" | "writeback" | "directsync" | "unsafe"', doc: "qemu's cache mode (libvirt's default when absent)" },
    discard: { type: '"unmap" | "ignore"', doc: '"unmap" passes the guest\'s TRIM/discard on to the volume' },
    serial: { type: "string", doc: "the serial number the guest sees (up to 20 letters, digits, _ . + -)" },
    readonly: { type: "boolean", doc: "attached read-only (default false)" },
    identity: {
      type: "VolumeIdentity",
      doc: "what proves the volume is the Volume the stack made (a Volume's identity, passed by the TypeScript SDK): a volume found under the name that is not it is refused",
      bySdk: true,
    },
  },
};

const volumeIdentity: ObjectType<VolumeIdentity> = {
  doc: "What proves a volume on the host is the one the stack made (recorded by its Volume or Image)",
  fields: {
    marker: { type: "string", doc: "the UUID in the header of a qcow2 Volume pulumi-kvm made" },
    mtime: { type: "string", doc: "the modification time of an Image or seed when its upload ended" },
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

const dhcpHost: ObjectType<DhcpHost> = {
  doc: "A DHCP reservation",
  fields: {
    mac: { type: "string", doc: "the guest NIC's MAC (pin it on the Domain's interface)", required: true },
    ip: { type: "string", doc: "the address it always gets, inside the DHCP subnet", required: true },
    name: { type: "string", doc: "a host name dnsmasq serves for it" },
  },
};

const dhcp: ObjectType<Defined<NetworkInputs["dhcp"]>> = {
  doc: "A Network's DHCP range and reservations",
  fields: {
    start: { type: "string", doc: "the first address of the range, inside the first IPv4 subnet", required: true },
    end: { type: "string", doc: "the last address of the range", required: true },
    hosts: { type: "DhcpHost[]", doc: "reservations; they change in place, live" },
  },
};

const filterRule: ObjectType<FilterRule> = {
  doc: "A rule of a NetworkFilter",
  fields: {
    action: {
      type: '"accept" | "drop" | "reject"',
      doc: '"drop" and "reject" of what comes in refuse new connections only: replies to the VM\'s own connections, and its DHCP, still reach it',
      required: true,
    },
    direction: { type: '"in" | "out" | "inout"', doc: '"in": to the VM; "out": from it; "inout": both', required: true },
    protocol: { type: '"tcp" | "udp" | "icmp" | "all"', doc: '"all": every IPv4 protocol', required: true },
    ports: { type: "string", doc: 'the destination port or range, "22" or "8000-8080" (tcp and udp)' },
    cidr: {
      type: "string",
      doc: 'the other side, an IPv4 CIDR ("10.0.0.0/8"): the source of what comes in, the destination of what goes out (not with "inout")',
    },
    priority: { type: "integer", doc: "the order of the rules, lowest first: -999 to 1000 (default 500)" },
  },
};

const poolSpace: ObjectType<{ name: string; capacityBytes: number; availableBytes: number }> = {
  doc: "A running storage pool's size and free space",
  fields: {
    name: { type: "string", doc: "its name", required: true },
    capacityBytes: { type: "number", doc: "its size", required: true },
    availableBytes: { type: "number", doc: "its free space", required: true },
  },
};

/** Every object type by the name declarations use. */
export const OBJECT_TYPES: Record<string, ObjectType<any>> = {
  Host: host,
  ImageSource: imageSource,
  Backing: backing,
  Disk: disk,
  VolumeIdentity: volumeIdentity,
  DirectInterface: directInterface,
  NetworkInterface: networkInterface,
  CloudInit: cloudInit,
  Tpm: tpm,
  XmlPatch: xmlPatch,
  WaitForIp: waitForIp,
  InterfaceState: interfaceState,
  Dhcp: dhcp,
  DhcpHost: dhcpHost,
  PoolSpace: poolSpace,
  FilterRule: filterRule,
};

/** Whether a value of a declared type carries a field declared secret (a host with a private key): it is stored whole as a secret. */
export function carriesSecret(type: string, value: unknown): boolean {
  const fields = OBJECT_TYPES[type]?.fields as Record<string, Field> | undefined;
  if (!fields || typeof value !== "object" || value === null) return false;
  return Object.entries(fields).some(([k, f]) => {
    const v = (value as Record<string, unknown>)[k];
    return (f.secret && !!v) || (f.secretWhen?.(v) ?? false);
  });
}
