// 30 resources on one host, created, updated and deleted in parallel by one `pulumi up`
// at Pulumi's default parallelism: an Image, 10 overlay disks and the 10 VMs defined on
// them (each with a cloud-init seed; not started: libvirt's side, not qemu's, is under
// load here), and 9 blank volumes.
//   prefix   names of every object
//   grown    "true": every volume 8 MiB larger and every VM 32 MiB more memory (an update of 29)
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const grown = config.getBoolean("grown") ?? false;
const host = labHost();
const MiB = 1 << 20;

const image = new kvm.Image(`${prefix}-image`, { host, source: { path: lab.KVM_LAB_IMAGE } });
export const vms = Array.from({ length: 10 }, (_, i) => {
  const disk = new kvm.Volume(`${prefix}-disk-${i}`, { host, baseImage: image, capacity: (grown ? 72 : 64) * MiB });
  return new kvm.Domain(`${prefix}-vm-${i}`, {
    host,
    type: "qemu",
    memory: grown ? "160MiB" : "128MiB",
    running: false,
    disks: [{ volume: disk }],
    networkInterfaces: [{ network: lab.KVM_LAB_NETWORK }],
    cloudInit: { hostname: `${prefix}-vm-${i}` },
  }).state;
});
export const blanks = Array.from({ length: 9 }, (_, i) => new kvm.Volume(`${prefix}-blank-${i}`, { host, capacity: (grown ? 24 : 16) * MiB }).capacityBytes);
