// Wrong inputs across the connection object, Image, Volume, Domain, StoragePool and
// Network. Each must be rejected in check (or, where only the host can tell, in create)
// with the property named and a fix suggested: never a stack trace, never a hang, and
// the host's volume, domain, pool and network lists unchanged.
import * as assert from "assert";
import * as crypto from "crypto";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { Kind as KvmKind } from "../../provider/kinds";
import { check } from "../../provider/resources/dispatch";
import { domainProvider } from "../../provider/kinds/domain/lifecycle";
import { imageProvider } from "../../provider/kinds/image/lifecycle";
import { networkProvider } from "../../provider/kinds/network/lifecycle";
import { storagePoolProvider } from "../../provider/kinds/storage-pool/lifecycle";
import { ResourceProvider } from "../../provider/resources/types";
import { volumeProvider } from "../../provider/kinds/volume/lifecycle";
import { HostConfig } from "../../provider/ssh/host";
import { labHost } from "../support/hosts";
import { FileServer } from "../support/http-server";
import { LabEnv, labEnv } from "../support/lab";
import { domainNames, mine, networkNames, poolNames, volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

type Kind = "image" | "volume" | "domain" | "pool" | "network";
const providers: Record<Kind, { kind: KvmKind; provider: ResourceProvider<any, any> }> = {
  image: { kind: "Image", provider: imageProvider },
  volume: { kind: "Volume", provider: volumeProvider },
  domain: { kind: "Domain", provider: domainProvider },
  pool: { kind: "StoragePool", provider: storagePoolProvider },
  network: { kind: "Network", provider: networkProvider },
};

interface Case {
  what: string;
  kind: Kind;
  /** Inputs on top of a valid resource of this kind. */
  inputs(ctx: Ctx): Record<string, unknown>;
  /** Where it must be caught. */
  at: "check" | "create";
  property: string;
  /** The fix (or the precise reason) the message must carry. */
  says: RegExp;
}

interface Ctx {
  lab: LabEnv;
  host: HostConfig;
  tmp: string;
  url: string;
  /** Serves a qcow2 whose header names /etc/shadow as its backing file. */
  hostileUrl: string;
  lengthlessRawUrl: string;
  unresumableUrl: string;
  baseImage: string;
  /** A domain defined with virsh, outside any stack. */
  foreignDomain: string;
}

const valid = (ctx: Ctx, kind: Kind): Record<string, unknown> =>
  ({
    image: { host: ctx.host, resourceName: `bad-input-image-${process.pid}`, source: { path: ctx.lab.image } },
    volume: { host: ctx.host, resourceName: `bad-input-volume-${process.pid}`, baseImage: ctx.baseImage, sourceFormat: "qcow2" },
    domain: {
      host: ctx.host,
      resourceName: `bad-input-vm-${process.pid}`,
      type: "qemu",
      memory: "256MiB",
      disks: [{ volume: ctx.baseImage, format: "qcow2" }],
      networkInterfaces: [{ network: ctx.lab.network }],
    },
    pool: { host: ctx.host, resourceName: `bad-input-pool-${process.pid}`, path: `/var/lib/libvirt/bad-input-pool-${process.pid}` },
    network: { host: ctx.host, resourceName: `bad-input-net-${process.pid}`, mode: "isolated", addresses: ["192.168.173.1/24"] },
  })[kind];

const withHost = (over: Partial<HostConfig>) => (ctx: Ctx) => ({ host: { ...ctx.host, ...over } });

const cases: Case[] = [
  // the connection object
  { what: "no host", kind: "image", inputs: () => ({ host: undefined }), at: "check", property: "host", says: /host is required/ },
  {
    what: "an address with spaces",
    kind: "image",
    inputs: withHost({ address: "my host" }),
    at: "check",
    property: "host.address",
    says: /host name, IP address/,
  },
  { what: "port 0", kind: "image", inputs: withHost({ port: 0 }), at: "check", property: "host.port", says: /1-65535/ },
  { what: "a port given as text", kind: "volume", inputs: withHost({ port: "22" as any }), at: "check", property: "host.port", says: /1-65535/ },
  { what: "a user with spaces", kind: "volume", inputs: withHost({ user: "ro ot" }), at: "check", property: "host.user", says: /user name/ },
  {
    what: "a missing key file",
    kind: "image",
    inputs: (c) => withHost({ privateKeyPath: path.join(c.tmp, "nope") })(c),
    at: "check",
    property: "host",
    says: /nope does not exist.*appears later/s,
  },
  {
    what: "an inline key that is not a key",
    kind: "image",
    inputs: withHost({ privateKey: "hunter2" }),
    at: "check",
    property: "host.privateKey",
    says: /text of a private key/,
  },
  {
    what: "an inline key that does not parse",
    kind: "volume",
    inputs: withHost({ privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n" }),
    at: "check",
    property: "host",
    says: /not a private key ssh can use.*ssh-keygen/s,
  },
  {
    what: "a wrong passphrase",
    kind: "domain",
    inputs: (c) => withHost({ privateKeyPath: path.join(c.tmp, "enc"), passphrase: "wrong" })(c),
    at: "check",
    property: "host",
    says: /passphrase does not decrypt/,
  },
  {
    what: "an encrypted key without passphrase",
    kind: "domain",
    inputs: (c) => withHost({ privateKeyPath: path.join(c.tmp, "enc") })(c),
    at: "check",
    property: "host",
    says: /encrypted and no passphrase.*Set passphrase/s,
  },
  {
    what: "a known_hosts without the host",
    kind: "image",
    inputs: (c) => withHost({ knownHostsPath: path.join(c.tmp, "kh-empty") })(c),
    at: "check",
    property: "host",
    says: /host key is unknown.*add this line/s,
  },
  {
    what: "a known_hosts that trusts the host key, then @revokes it",
    kind: "image",
    inputs: (c) => withHost({ knownHostsPath: path.join(c.tmp, "kh-revoked") })(c),
    at: "check",
    property: "host",
    says: /marks @revoked/,
  },
  {
    what: "a known_hosts line behind an unknown marker",
    kind: "image",
    inputs: (c) => withHost({ knownHostsPath: path.join(c.tmp, "kh-marker") })(c),
    at: "check",
    property: "host",
    says: /host key is unknown/,
  },
  {
    what: "a pinned host key with host key checking off",
    kind: "image",
    inputs: withHost({ hostKeyFingerprint: `SHA256:${"A".repeat(43)}`, strictHostKeyChecking: false }),
    at: "check",
    property: "host.strictHostKeyChecking",
    says: /ignore the pinned hostKeyFingerprint/,
  },
  {
    what: "a malformed fingerprint",
    kind: "image",
    inputs: withHost({ hostKeyFingerprint: "MD5:aa:bb" }),
    at: "check",
    property: "host.hostKeyFingerprint",
    says: /SHA256:/,
  },
  {
    what: "a relative socket path",
    kind: "volume",
    inputs: withHost({ socketPath: "libvirt-sock" }),
    at: "check",
    property: "host.socketPath",
    says: /absolute path/,
  },
  { what: "a URI that is not one", kind: "volume", inputs: withHost({ uri: "system" }), at: "check", property: "host.uri", says: /qemu:\/\/\/system/ },
  {
    what: "a socket that is not there",
    kind: "domain",
    inputs: withHost({ socketPath: "/run/none/libvirt-sock" }),
    at: "check",
    property: "host",
    says: /libvirtd runs on the host.*AllowStreamLocalForwarding/s,
  },
  // a host that does not answer fails its own resources at the step, not the whole preview (a fleet's other hosts go ahead)
  { what: "a closed port", kind: "image", inputs: withHost({ port: 1 }), at: "create", property: "host", says: /tcp failed: cannot connect.*is sshd running/s },
  // Image
  { what: "a name with /", kind: "image", inputs: () => ({ name: "a/b" }), at: "check", property: "name", says: /contains "\/"/ },
  { what: "a name with ..", kind: "image", inputs: () => ({ name: "a..b" }), at: "check", property: "name", says: /contains "\.\."/ },
  { what: "a name with spaces", kind: "image", inputs: () => ({ name: "my image" }), at: "check", property: "name", says: /use letters, digits/ },
  { what: "a name with XML characters", kind: "image", inputs: () => ({ name: "<img>&" }), at: "check", property: "name", says: /use letters, digits/ },
  { what: "an over-long name", kind: "image", inputs: () => ({ name: "x".repeat(300) }), at: "check", property: "name", says: /at most 100/ },
  {
    what: "both url and path",
    kind: "image",
    inputs: (c) => ({ source: { url: c.url, path: c.lab.image } }),
    at: "check",
    property: "source",
    says: /exactly one of url/,
  },
  { what: "no source", kind: "image", inputs: () => ({ source: {} }), at: "check", property: "source", says: /exactly one of url/ },
  {
    what: "an ftp URL",
    kind: "image",
    inputs: () => ({ source: { url: "ftp://example.org/x.qcow2" } }),
    at: "check",
    property: "source.url",
    says: /http:\/\/ or https:\/\//,
  },
  {
    what: "a file URL",
    kind: "image",
    inputs: () => ({ source: { url: "file:///etc/passwd" } }),
    at: "check",
    property: "source.url",
    says: /http:\/\/ or https:\/\//,
  },
  {
    what: "a missing local file",
    kind: "image",
    inputs: () => ({ source: { path: "/nonexistent/x.qcow2" } }),
    at: "check",
    property: "source.path",
    says: /does not exist/,
  },
  {
    what: "a malformed sha256",
    kind: "image",
    inputs: (c) => ({ source: { path: c.lab.image, sha256: "abc" } }),
    at: "check",
    property: "source.sha256",
    says: /64 hex digits/,
  },
  {
    what: "a wrong sha256",
    kind: "image",
    inputs: (c) => ({ source: { path: c.lab.image, sha256: "f".repeat(64) } }),
    at: "check",
    property: "source.sha256",
    says: /source.sha256 is f+ but .* has sha256 [0-9a-f]{64}: fix the checksum or the file/,
  },
  {
    what: "a URL answering 404",
    kind: "image",
    inputs: (c) => ({ source: { url: c.url.replace("image.qcow2", "missing.qcow2") } }),
    at: "create",
    property: "source.url",
    says: /HTTP 404.*Check the URL/s,
  },
  {
    what: "an unreachable URL",
    kind: "image",
    inputs: () => ({ source: { url: "http://127.0.0.1:1/x.qcow2" } }),
    at: "create",
    property: "source.url",
    says: /ECONNREFUSED.*reachable/s,
  },
  { what: "a format the header contradicts", kind: "image", inputs: () => ({ format: "raw" }), at: "check", property: "format", says: /qcow2 by its header/ },
  {
    what: "a format a downloaded header contradicts",
    kind: "image",
    inputs: (c) => ({ source: { url: c.url }, format: "raw" }),
    at: "create",
    property: "format",
    says: /qcow2 by its header.*nothing was created/s,
  },
  {
    what: "a qcow2 naming a backing file on the host",
    kind: "image",
    inputs: (c) => ({ source: { path: path.join(c.tmp, "backing.qcow2") } }),
    at: "check",
    property: "source.path",
    says: /names a backing file \("\/etc\/shadow"\).*qemu-img convert/s,
  },
  {
    what: "a qcow2 with an external data file",
    kind: "image",
    inputs: (c) => ({ source: { path: path.join(c.tmp, "datafile.qcow2") } }),
    at: "check",
    property: "source.path",
    says: /external data file.*qemu-img convert/s,
  },
  {
    what: "a downloaded qcow2 naming a backing file",
    kind: "image",
    inputs: (c) => ({ source: { url: c.hostileUrl } }),
    at: "create",
    property: "source",
    says: /names a backing file \("\/etc\/shadow"\)/,
  },
  {
    what: "a VMDK image",
    kind: "image",
    inputs: (c) => ({ source: { path: path.join(c.tmp, "disk.vmdk") } }),
    at: "check",
    property: "source.path",
    says: /vmdk.*qemu-img convert/s,
  },
  { what: "a missing pool", kind: "image", inputs: () => ({ pool: "no-such-pool" }), at: "check", property: "pool", says: /does not exist.*pool-define-as/s },
  {
    what: "a raw image served without Content-Length",
    kind: "image",
    inputs: (c) => ({ source: { url: c.lengthlessRawUrl } }),
    at: "create",
    property: "source.url",
    says: /sends no Content-Length.*give source\.path/s,
  },
  {
    what: "a download that breaks on a server that cannot resume",
    kind: "image",
    inputs: (c) => ({ source: { url: c.unresumableUrl } }),
    at: "create",
    property: "source.url",
    says: /cannot resume there.*starts over on the next run/s,
  },
  // Volume
  { what: "a unit-less size", kind: "volume", inputs: () => ({ capacity: "20" }), at: "check", property: "capacity", says: /with a unit/ },
  { what: "a zero size", kind: "volume", inputs: () => ({ capacity: 0 }), at: "check", property: "capacity", says: /positive/ },
  { what: "a negative size", kind: "volume", inputs: () => ({ capacity: -5 }), at: "check", property: "capacity", says: /positive/ },
  { what: "an absurd size", kind: "volume", inputs: () => ({ capacity: "99999TiB" }), at: "check", property: "capacity", says: /absurdly large/ },
  { what: "an unknown unit", kind: "volume", inputs: () => ({ capacity: "10parsecs" }), at: "check", property: "capacity", says: /not a size unit/ },
  {
    what: "a base image that is not there",
    kind: "volume",
    inputs: () => ({ baseImage: "no-such-image" }),
    at: "create",
    property: "baseImage",
    says: /not a volume in pool.*Pass an Image/s,
  },
  { what: "a raw overlay", kind: "volume", inputs: () => ({ format: "raw" }), at: "check", property: "format", says: /must be qcow2/ },
  {
    what: "a blank volume without size",
    kind: "volume",
    inputs: () => ({ baseImage: undefined, sourceFormat: undefined }),
    at: "check",
    property: "capacity",
    says: /needs capacity/,
  },
  // Domain
  { what: "a domain name with /", kind: "domain", inputs: () => ({ name: "vm/1" }), at: "check", property: "name", says: /contains "\/"/ },
  { what: "zero vcpus", kind: "domain", inputs: () => ({ vcpu: 0 }), at: "check", property: "vcpu", says: /1-512/ },
  { what: "1 KiB of memory", kind: "domain", inputs: () => ({ memory: "1KiB" }), at: "check", property: "memory", says: /under 32 MiB/ },
  { what: "memory in words", kind: "domain", inputs: () => ({ memory: "lots" }), at: "check", property: "memory", says: /not a size/ },
  { what: "no disks", kind: "domain", inputs: () => ({ disks: [] }), at: "check", property: "disks", says: /at least one disk/ },
  { what: "Secure Boot under BIOS", kind: "domain", inputs: () => ({ secureBoot: true }), at: "check", property: "secureBoot", says: /needs firmware: "uefi"/ },
  {
    what: "Secure Boot on the pc machine",
    kind: "domain",
    inputs: () => ({ firmware: "uefi", secureBoot: true, machine: "pc" }),
    at: "check",
    property: "machine",
    says: /secureBoot needs a q35 machine/,
  },
  {
    what: "a TPM 1.2 on tpm-crb",
    kind: "domain",
    inputs: () => ({ tpm: { version: "1.2", model: "tpm-crb" } }),
    at: "check",
    property: "tpm.model",
    says: /use "tpm-tis"/,
  },
  {
    what: "an XML patch that matches nothing",
    kind: "domain",
    inputs: () => ({ xmlPatches: [{ xpath: "/domain/devices/watchdog", remove: true }] }),
    at: "check",
    property: "xmlPatches[0].xpath",
    says: /"\/domain\/devices\/watchdog" matches nothing in the domain XML/,
  },
  {
    what: "an XML patch libvirt refuses",
    kind: "domain",
    inputs: () => ({ xmlPatches: [{ xpath: "/domain/devices", add: "<watchdog model='no-such-model'/>" }] }),
    at: "create",
    property: "xmlPatches",
    says: /libvirt refused the domain XML with its patches applied: .*unknown watchdog model 'no-such-model'.*Correct the patches/,
  },
  {
    what: "an XML patch on a disk pulumi-kvm manages",
    kind: "domain",
    inputs: () => ({ xmlPatches: [{ xpath: "/domain/devices/disk/source/@file", set: "/etc/shadow" }] }),
    at: "check",
    property: "xmlPatches[0].xpath",
    says: /changes its disks \(and the cloud-init seed\), which pulumi-kvm manages/,
  },
  {
    what: "a disk volume that is not there",
    kind: "domain",
    inputs: () => ({ disks: [{ volume: "no-such-disk", format: "raw" }] }),
    at: "create",
    property: "disks[0].volume",
    says: /Create it \(a Volume resource\)/,
  },
  {
    what: "a network that does not exist",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ network: "no-such-net" }] }),
    at: "check",
    property: "networkInterfaces",
    says: /no-such-net.*Define and start it/s,
  },
  {
    what: "a malformed MAC",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ network: "kvmlab", mac: "52:54:00:zz:00:01" }] }),
    at: "check",
    property: "networkInterfaces[0].mac",
    says: /52:54:00:12:34:56/,
  },
  {
    what: "a multicast MAC",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ network: "kvmlab", mac: "01:00:5e:00:00:01" }] }),
    at: "check",
    property: "networkInterfaces[0].mac",
    says: /multicast/,
  },
  {
    what: "network and bridge at once",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ network: "kvmlab", bridge: "br0" }] }),
    at: "check",
    property: "networkInterfaces[0]",
    says: /one of network, bridge or direct/,
  },
  { what: "an initrd without kernel", kind: "domain", inputs: (c) => ({ initrd: c.lab.initrd }), at: "check", property: "initrd", says: /needs kernel/ },
  { what: "a cmdline without kernel", kind: "domain", inputs: () => ({ cmdline: "console=ttyS0" }), at: "check", property: "cmdline", says: /needs kernel/ },
  { what: "a relative kernel path", kind: "domain", inputs: () => ({ kernel: "vmlinuz" }), at: "check", property: "kernel", says: /absolute path/ },
  {
    what: "a cdrom boot disk with waitForIp",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, format: "qcow2", device: "cdrom" }], waitForIp: true }),
    at: "check",
    property: "disks[0].device",
    says: /boot from a disk volume or drop waitForIp/,
  },
  {
    what: "waitForIp on a stopped domain",
    kind: "domain",
    inputs: () => ({ running: false, waitForIp: true }),
    at: "check",
    property: "waitForIp",
    says: /never gets an address/,
  },
  {
    what: "the agent as IP source without the agent",
    kind: "domain",
    inputs: () => ({ waitForIp: { source: "agent" } }),
    at: "check",
    property: "waitForIp.source",
    says: /qemuAgent: true/,
  },
  {
    what: "a cdrom on virtio",
    kind: "domain",
    inputs: (c) => ({
      disks: [
        { volume: c.baseImage, format: "qcow2" },
        { volume: c.baseImage, format: "qcow2", device: "cdrom", bus: "virtio" },
      ],
    }),
    at: "check",
    property: "disks[1].bus",
    says: /use sata or scsi/,
  },
  { what: "a xen domain", kind: "domain", inputs: () => ({ type: "xen" }), at: "check", property: "type", says: /"kvm" or "qemu"/ },
  { what: "coreboot firmware", kind: "domain", inputs: () => ({ firmware: "coreboot" }), at: "check", property: "firmware", says: /"bios" or "uefi"/ },
  {
    what: "a hostname with underscores",
    kind: "domain",
    inputs: () => ({ cloudInit: { hostname: "web_1" } }),
    at: "check",
    property: "cloudInit.hostname",
    says: /not a host name/,
  },
  {
    what: "an empty shutdownTimeout",
    kind: "domain",
    inputs: () => ({ shutdownTimeout: "" }),
    at: "check",
    property: "shutdownTimeout",
    says: /empty string is not a duration/,
  },
  {
    what: "a disk given by name without its format",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage }] }),
    at: "check",
    property: "disks[0].format",
    says: /required for a disk given by name.*guest can write any header/,
  },
  {
    what: "a disk base that is no absolute path",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, format: "qcow2", backing: { path: "base.qcow2", format: "qcow2" } }] }),
    at: "check",
    property: "disks[0].backing",
    says: /absolute path/,
  },
  {
    what: "an overlay's base given by name without its format",
    kind: "volume",
    inputs: () => ({ sourceFormat: undefined }),
    at: "check",
    property: "sourceFormat",
    says: /required when baseImage is given by name/,
  },
  {
    what: "a copy's source given by name without its format",
    kind: "volume",
    inputs: (c) => ({ baseImage: undefined, cloneOf: c.baseImage, sourceFormat: undefined }),
    at: "check",
    property: "sourceFormat",
    says: /required when cloneOf is given by name/,
  },
  {
    what: "a source format libvirt lacks",
    kind: "volume",
    inputs: () => ({ sourceFormat: "vmdk" }),
    at: "check",
    property: "sourceFormat",
    says: /"qcow2" or "raw"/,
  },
  {
    what: "a disk boot order of 0",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, format: "qcow2", bootOrder: 0 }] }),
    at: "check",
    property: "disks[0].bootOrder",
    says: /1 boots first/,
  },
  {
    what: "two disks with the same boot order",
    kind: "domain",
    inputs: (c) => ({
      disks: [
        { volume: c.baseImage, format: "qcow2", bootOrder: 1 },
        { volume: c.baseImage, format: "qcow2", bootOrder: 1 },
      ],
    }),
    at: "check",
    property: "disks",
    says: /its own place/,
  },
  {
    what: "a cache mode libvirt lacks",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, format: "qcow2", cache: "fast" }] }),
    at: "check",
    property: "disks[0].cache",
    says: /writeback/,
  },
  {
    what: "a discard mode libvirt lacks",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, format: "qcow2", discard: "trim" }] }),
    at: "check",
    property: "disks[0].discard",
    says: /"unmap"/,
  },
  {
    what: "a disk serial with a blank",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, format: "qcow2", serial: "data disk" }] }),
    at: "check",
    property: "disks[0].serial",
    says: /1-20 letters/,
  },
  {
    what: "a waitForIp timeout in words",
    kind: "domain",
    inputs: () => ({ waitForIp: { timeout: "soon" } }),
    at: "check",
    property: "waitForIp.timeout",
    says: /"30s", "5m"/,
  },
  {
    what: "a NIC on a network and a device at once",
    kind: "domain",
    inputs: (c) => ({ networkInterfaces: [{ network: c.lab.network, direct: { dev: "eth0" } }] }),
    at: "check",
    property: "networkInterfaces[0]",
    says: /one of network, bridge or direct/,
  },
  {
    what: "a direct NIC on a device name with a slash",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ direct: { dev: "eth0/1" } }] }),
    at: "check",
    property: "networkInterfaces[0].direct.dev",
    says: /host network device/,
  },
  {
    what: "a direct NIC mode macvtap lacks",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ direct: { dev: "eth0", mode: "trunk" } }] }),
    at: "check",
    property: "networkInterfaces[0].direct.mode",
    says: /"vepa"/,
  },
  {
    what: "waitForIp from leases on a bridged NIC",
    kind: "domain",
    inputs: () => ({ networkInterfaces: [{ bridge: "br0" }], waitForIp: { source: "lease" } }),
    at: "check",
    property: "waitForIp.source",
    says: /source "arp"/,
  },
  {
    what: "a domain name taken by a VM made outside the stack",
    kind: "domain",
    inputs: (c) => ({ name: c.foreignDomain }),
    at: "check",
    property: "name",
    says: /adopt: true/,
  },
  {
    what: "a full copy of an overlay's base at once",
    kind: "volume",
    inputs: (c) => ({ cloneOf: c.baseImage }),
    at: "check",
    property: "cloneOf",
    says: /not both/,
  },
  {
    what: "a full copy of a volume that does not exist",
    kind: "volume",
    inputs: () => ({ baseImage: undefined, cloneOf: "no-such-volume.qcow2" }),
    at: "create",
    property: "cloneOf",
    says: /not a volume in pool/,
  },
  { what: "adopt as a word", kind: "volume", inputs: () => ({ adopt: "yes" }), at: "check", property: "adopt", says: /true or false/ },
  // storage pools
  { what: "a pool type pulumi-kvm does not make", kind: "pool", inputs: () => ({ type: "lvm" }), at: "check", property: "type", says: /"dir"/ },
  { what: "no pool path", kind: "pool", inputs: () => ({ path: undefined }), at: "check", property: "path", says: /pool's directory/ },
  { what: "a relative pool path", kind: "pool", inputs: () => ({ path: "images/fast" }), at: "check", property: "path", says: /absolute/ },
  { what: "a pool path climbing out", kind: "pool", inputs: () => ({ path: "/var/lib/libvirt/../../etc" }), at: "check", property: "path", says: /"\.\."/ },
  {
    what: "a pool name taken outside the stack",
    kind: "pool",
    inputs: (c) => ({ name: c.lab.pool, path: c.lab.poolDir }),
    at: "check",
    property: "name",
    says: /adopt: true.*virsh pool-destroy/,
  },
  {
    what: "adopting a pool in another directory",
    kind: "pool",
    inputs: (c) => ({ name: c.lab.pool, adopt: true }),
    at: "create",
    property: "path",
    says: /cannot adopt storage pool.*path is/,
  },
  // networks
  { what: "a network mode libvirt lacks", kind: "network", inputs: () => ({ mode: "bridged" }), at: "check", property: "mode", says: /"nat", "isolated"/ },
  {
    what: "bridge mode without the host's bridge",
    kind: "network",
    inputs: () => ({ mode: "bridge", addresses: undefined }),
    at: "check",
    property: "bridge",
    says: /existing bridge/,
  },
  {
    what: "NAT without a gateway address",
    kind: "network",
    inputs: () => ({ mode: "nat", addresses: [] }),
    at: "check",
    property: "addresses",
    says: /required in nat mode/,
  },
  {
    what: "an address without a prefix",
    kind: "network",
    inputs: () => ({ addresses: ["192.168.173.1"] }),
    at: "check",
    property: "addresses[0]",
    says: /"192\.168\.171\.1\/24"/,
  },
  {
    what: "a DHCP range outside the subnet",
    kind: "network",
    inputs: () => ({ dhcp: { start: "10.0.0.10", end: "192.168.173.200" } }),
    at: "check",
    property: "dhcp.start",
    says: /outside 192\.168\.173\.1\/24/,
  },
  {
    what: "a DHCP range backwards",
    kind: "network",
    inputs: () => ({ dhcp: { start: "192.168.173.200", end: "192.168.173.100" } }),
    at: "check",
    property: "dhcp.end",
    says: /comes before/,
  },
  {
    what: "a reservation with a bad MAC",
    kind: "network",
    inputs: () => ({ dhcp: { start: "192.168.173.100", end: "192.168.173.200", hosts: [{ mac: "52:54:00:zz:00:01", ip: "192.168.173.10" }] } }),
    at: "check",
    property: "dhcp.hosts[0].mac",
    says: /MAC address/,
  },
  {
    what: "one address reserved twice",
    kind: "network",
    inputs: () => ({
      dhcp: {
        start: "192.168.173.100",
        end: "192.168.173.200",
        hosts: [
          { mac: "52:54:00:00:00:01", ip: "192.168.173.10" },
          { mac: "52:54:00:00:00:02", ip: "192.168.173.10" },
        ],
      },
    }),
    at: "check",
    property: "dhcp.hosts[1]",
    says: /again/,
  },
  {
    what: "a bridge name longer than Linux allows",
    kind: "network",
    inputs: () => ({ bridge: "a-very-long-bridge-name" }),
    at: "check",
    property: "bridge",
    says: /at most 15/,
  },
  {
    what: "a network name taken outside the stack",
    kind: "network",
    inputs: (c) => ({ name: c.lab.network }),
    at: "check",
    property: "name",
    says: /adopt: true.*virsh net-destroy/,
  },
  {
    what: "adopting a network with other addresses",
    kind: "network",
    inputs: (c) => ({ name: c.lab.network, adopt: true }),
    at: "create",
    property: "addresses",
    says: /cannot adopt network.*addresses is \["192\.168\.150\.1\/24"\] on the host/,
  },
];

// inputs no kind declares: YAML and Python programs have no compiler to catch them
cases.push(
  {
    what: "a misspelt input",
    kind: "domain",
    inputs: () => ({ memroy: "512MiB" }),
    at: "check",
    property: "memroy",
    says: /a Domain has no input "memroy"\. Did you mean "memory"\?.*remove it or correct its name/,
  },
  {
    what: "an input this version does not have",
    kind: "domain",
    inputs: () => ({ watchdog: { model: "i6300esb" } }),
    at: "check",
    property: "watchdog",
    says: /a Domain has no input "watchdog"\. Its inputs are host, name, type, vcpu.*xmlPatches/,
  },
  {
    what: "a misspelt field of a disk",
    kind: "domain",
    inputs: (c) => ({ disks: [{ volume: c.baseImage, formt: "qcow2" }] }),
    at: "check",
    property: "disks[0].formt",
    says: /a Disk \(a Domain\) has no input "formt"\. Did you mean "format"\?/,
  },
  {
    what: "a misspelt field of the host",
    kind: "network",
    inputs: (c) => ({ host: { ...c.host, knownHostPath: "/etc/ssh/known" } }),
    at: "check",
    property: "host.knownHostPath",
    says: /a Host \(a Network\) has no input "knownHostPath"\. Did you mean "knownHostsPath"\?/,
  },
);

describe("bad inputs", function () {
  this.timeout(120_000);
  const tmp = tempDir("bad-");
  let ctx: Ctx;
  let server: FileServer;
  let hostile: FileServer;
  let lengthless: FileServer;
  let unresumable: FileServer;

  before(async () => {
    const lab = labEnv();
    server = await FileServer.start(lab.image);
    // hostile images: headers that point at files of the host
    execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", "-u", "-b", "/etc/shadow", "-F", "raw", path.join(tmp, "backing.qcow2"), "64M"]);
    execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", "-o", `data_file=${path.join(tmp, "datafile.raw")}`, path.join(tmp, "datafile.qcow2"), "64M"]);
    hostile = await FileServer.start(path.join(tmp, "backing.qcow2"));
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "right", "-f", path.join(tmp, "enc")]);
    fs.writeFileSync(path.join(tmp, "kh-empty"), "");
    const trusted = fs
      .readFileSync(lab.knownHosts, "utf8")
      .split("\n")
      .filter((l) => l.trim());
    fs.writeFileSync(path.join(tmp, "kh-revoked"), [...trusted, ...trusted.map((l) => `@revoked ${l}`)].join("\n") + "\n");
    fs.writeFileSync(path.join(tmp, "kh-marker"), trusted.map((l) => `@trusted ${l}`).join("\n") + "\n");
    fs.writeFileSync(path.join(tmp, "disk.vmdk"), Buffer.concat([Buffer.from("KDMV"), Buffer.alloc(1020)]));
    // a raw image its server sends without a length; a server that breaks every body and cannot resume
    fs.writeFileSync(path.join(tmp, "raw.img"), crypto.randomBytes(1024 * 1024));
    lengthless = await FileServer.start(path.join(tmp, "raw.img"));
    lengthless.lengthless = true;
    unresumable = await FileServer.start(lab.image);
    unresumable.ranges = false;
    unresumable.alwaysTruncate = true;
    const baseImage = `bad-input-base-${process.pid}.qcow2`;
    execFileSync("virsh", ["-q", "-c", "qemu:///system", "vol-create-as", lab.pool, baseImage, "64M", "--format", "qcow2"]);
    const foreignDomain = `bad-input-foreign-${process.pid}`;
    fs.writeFileSync(
      path.join(tmp, "foreign.xml"),
      `<domain type="qemu"><name>${foreignDomain}</name><memory unit="MiB">64</memory><os><type>hvm</type></os></domain>`,
    );
    execFileSync("virsh", ["-q", "-c", "qemu:///system", "define", path.join(tmp, "foreign.xml")]);
    ctx = {
      lab,
      host: labHost(lab),
      tmp,
      url: server.url(),
      hostileUrl: hostile.url(),
      lengthlessRawUrl: lengthless.url("raw.img"),
      unresumableUrl: unresumable.url(),
      baseImage,
      foreignDomain,
    };
  });

  after(async () => {
    execFileSync("virsh", ["-q", "-c", "qemu:///system", "vol-delete", "--pool", labEnv().pool, ctx.baseImage]);
    execFileSync("virsh", ["-q", "-c", "qemu:///system", "undefine", ctx.foreignDomain]);
    await server.close();
    await hostile.close();
    await lengthless.close();
    await unresumable.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(`has at least 40 cases (${cases.length})`, () => assert.ok(cases.length >= 40));

  for (const c of cases) {
    it(`${c.kind}: ${c.what} → ${c.at} names ${c.property}`, async () => {
      const volumes = mine(volumeNames(ctx.lab));
      const domains = mine(domainNames());
      // only a pool or network can make a pool or network
      const hostWide = c.kind === "pool" || c.kind === "network";
      const pools = hostWide ? mine(poolNames()) : [];
      const networks = hostWide ? mine(networkNames()) : [];
      const { kind, provider } = providers[c.kind];
      const news = { ...valid(ctx, c.kind), ...c.inputs(ctx), kvmKind: kind };
      const hang = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("hung for 60 s")), 60_000).unref());
      // check as the engine calls it (dispatch: the kind's check and the undeclared inputs)
      const checked = await Promise.race<Awaited<ReturnType<ResourceProvider<any, any>["check"]>>>([check(undefined, news), hang]);
      if (c.at === "check") {
        const f = checked.failures.find((x) => x.property === c.property);
        assert.ok(f, `no failure on ${c.property}: ${JSON.stringify(checked.failures)}`);
        assert.match(f.reason, c.says);
        assert.doesNotMatch(f.reason, /\n\s+at /, "no stack trace");
      } else {
        assert.deepStrictEqual(checked.failures, [], "only the host can tell this one");
        let err: Error | undefined;
        try {
          await Promise.race([provider.create(checked.inputs), hang]);
        } catch (e) {
          err = e as Error;
        }
        assert.ok(err, "create must fail");
        assert.ok(err.message.includes(c.property), `names ${c.property}: ${err.message}`);
        assert.match(err.message, c.says);
        assert.doesNotMatch(err.message, /\n\s+at /, "no stack trace");
      }
      assert.deepStrictEqual(mine(volumeNames(ctx.lab)), volumes, "volumes unchanged");
      assert.deepStrictEqual(mine(domainNames()), domains, "domains unchanged");
      if (hostWide) {
        assert.deepStrictEqual(mine(poolNames()), pools, "pools unchanged");
        assert.deepStrictEqual(mine(networkNames()), networks, "networks unchanged");
      }
    });
  }
});
