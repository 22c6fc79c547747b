// The structured values kinds share (a host, an image source, a volume's base and identity),
// and the shape of every structured value: each field's type and what it is. A value only
// one kind has is declared with that kind (its declaration's `types`). Declarations name
// them in their types ("Host", "Disk[]", "boolean | WaitForIp"); the provider plugin's
// schema makes each a type of its own, so every language's SDK has it typed. Each is a
// mapped type over the provider's own interface: a field forgotten is a compile error.
import type { HostConfig } from "../ssh/host";
import type { ImageSource } from "../image/source";
import type { VolumeIdentity } from "../kinds/volume/identity";
import { urlHasSecrets } from "../image/url-secrets";
import type { DiskInput } from "../kinds/domain/types";

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

/** Any object type, as the tables of them hold it. */
export type SomeObjectType = { readonly doc: string; readonly fields: Readonly<Record<string, Field>> };

/** An optional input's object shape (`tpm?: Tpm | boolean` → Tpm). */
export type Defined<T> = Exclude<T, undefined | boolean>;
/** A list's element. */
export type Element<T> = T extends readonly (infer E)[] ? E : never;

/** A declared type of one of these strings: "a" | "b". */
export const choice = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(" | ");

/** A volume's format, as declared types spell it. */
export const FORMAT = '"qcow2" | "raw"';

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

const volumeIdentity: ObjectType<VolumeIdentity> = {
  doc: "What proves a volume on the host is the one the stack made (recorded by its Volume or Image)",
  fields: {
    marker: { type: "string", doc: "the UUID in the header of a qcow2 Volume pulumi-kvm made" },
    mtime: { type: "string", doc: "the modification time of an Image or seed when its upload ended" },
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

/** The object types several kinds share, by the name declarations use (kinds/index.ts adds each kind's own). */
export const SHARED_TYPES: Readonly<Record<string, SomeObjectType>> = {
  Host: host,
  ImageSource: imageSource,
  Backing: backing,
  VolumeIdentity: volumeIdentity,
  PoolSpace: poolSpace,
};

/** Whether a value of a declared type carries a field declared secret (a host with a private key): it is stored whole as a secret. */
export function carriesSecret(type: string, value: unknown, types: Readonly<Record<string, SomeObjectType>> = SHARED_TYPES): boolean {
  const fields = types[type]?.fields;
  if (!fields || typeof value !== "object" || value === null) return false;
  return Object.entries(fields).some(([k, f]) => {
    const v = (value as Record<string, unknown>)[k];
    return (f.secret && !!v) || (f.secretWhen?.(v) ?? false);
  });
}
