// What users write, from the smallest program up, chosen by stack config so one
// program serves every e2e case. Every optional input is left out unless the
// config names it.
//   prefix      names of every object (a per-run tag)
//   imagePath   the Image's source.path as written (may be relative: "./img.qcow2")
//   imageUrl, imageSha256, imageSha512, imageChecksumUrl  the Image from an http(s) URL instead (checksums optional)
//   disk        "overlay" (default: over the Image) | "blank" | "copy" (a full copy of the Image, cloneOf)
//   capacity    the Volume's capacity (digits: a number of bytes); absent: the image's size
//   domain      "none" | "minimal" (one disk, nothing else) | "net" (a NIC, waitForIp) | "broken" (a VM whose
//               kernel panics and a VM on the network without DHCP, both waiting for an address)
//   arrays      "outputs": the "net" domain's disks and networkInterfaces as Outputs of arrays
//   mac         a pinned MAC for the "net" domain's NIC
//   hostname    cloud-init's hostname for the "net" domain (a seed volume)
//   port, privateKeyPath  the login (key rotation)
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const host = labHost({ port: config.get("port"), privateKeyPath: config.get("privateKeyPath") });

const imageUrl = config.get("imageUrl");
const image = new kvm.Image(`${prefix}-image`, {
  host,
  source: imageUrl
    ? { url: imageUrl, sha256: config.get("imageSha256"), sha512: config.get("imageSha512"), checksumUrl: config.get("imageChecksumUrl") }
    : { path: config.get("imagePath") ?? lab.KVM_LAB_IMAGE },
});
const capacity = config.get("capacity");
const diskKind = config.get("disk") ?? "overlay";
const disk =
  diskKind === "blank"
    ? new kvm.Volume(`${prefix}-disk`, { host, capacity: /^\d+$/.test(capacity ?? "") ? Number(capacity) : capacity })
    : diskKind === "copy"
      ? new kvm.Volume(`${prefix}-disk`, { host, cloneOf: image, format: "raw" })
      : new kvm.Volume(`${prefix}-disk`, { host, baseImage: image, capacity });

const kind = config.get("domain") ?? "none";
const vm =
  kind === "minimal"
    ? new kvm.Domain(`${prefix}-vm`, { host, type: "qemu", memory: "128MiB", disks: [{ volume: disk }] })
    : kind === "net"
      ? new kvm.Domain(`${prefix}-vm`, {
          host,
          type: "qemu",
          memory: "128MiB",
          shutdownTimeout: "5s",
          ...(config.get("arrays") === "outputs"
            ? {
                disks: pulumi
                  .all([disk.name, disk.pool, disk.backing])
                  .apply(([name, pool, backing]) => [{ volume: name, pool, format: "qcow2" as const, backing }]),
                networkInterfaces: pulumi.output([lab.KVM_LAB_NETWORK]).apply((nets) => nets.map((network) => ({ network }))),
              }
            : { disks: [{ volume: disk }], networkInterfaces: [{ network: lab.KVM_LAB_NETWORK, mac: config.get("mac") }] }),
          cloudInit: config.get("hostname") ? { hostname: config.get("hostname") } : undefined,
          waitForIp: { timeout: "3m", source: "lease" },
        })
      : undefined;

if (kind === "broken") {
  const panics = new kvm.Domain(`${prefix}-panic`, {
    host,
    type: "qemu",
    memory: "128MiB",
    shutdownTimeout: "5s",
    disks: [{ volume: disk }],
    kernel: lab.KVM_LAB_KERNEL,
    initrd: lab.KVM_LAB_INITRD,
    cmdline: "console=ttyS0 rdinit=/no-such-init root=/dev/no-such-disk",
    networkInterfaces: [{ network: lab.KVM_LAB_NETWORK }],
    waitForIp: { timeout: "5m" },
  });
  const lonely = new kvm.Domain(`${prefix}-nodhcp`, {
    host,
    type: "qemu",
    memory: "128MiB",
    shutdownTimeout: "5s",
    disks: [{ volume: new kvm.Volume(`${prefix}-nodhcp-disk`, { host, baseImage: image }) }],
    networkInterfaces: [{ network: lab.KVM_LAB_NETWORK_NODHCP }],
    waitForIp: { timeout: "20s" },
  });
  void [panics, lonely];
}

export const imageSha256 = image.sha256;
export const imageSha512 = image.sha512;
export const capacityBytes = disk.capacityBytes;
export const state = vm?.state;
export const ip = vm?.ipAddress;
export const mac = vm?.interfaces.apply((i) => i[0]?.mac);
