// A small fleet on the lab's two sshd, each reached through a test proxy (the chaos run
// blackholes them): per host an Image, and `perHost` VMs, each on its own overlay disk
// with a cloud-init seed; the first VM of each host waits for its IP.
//   prefix, portA, portB, knownHosts   names, and where the proxies listen
//   perHost  VMs per host (default 2)
//   grown    "true": disks 8 MiB larger, VMs 32 MiB more memory (the update)
// (the lab's guest needs 128 MiB to boot and take a lease)
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const perHost = config.getNumber("perHost") ?? 2;
const grown = config.getBoolean("grown") ?? false;
const MiB = 1 << 20;

for (const [id, port] of [
  ["a", config.require("portA")],
  ["b", config.require("portB")],
]) {
  const host = { ...labHost({ port }), knownHostsPath: config.require("knownHosts") };
  const image = new kvm.Image(`${prefix}-${id}-image`, { host, source: { path: lab.KVM_LAB_IMAGE } });
  for (let i = 0; i < perHost; i++) {
    const disk = new kvm.Volume(`${prefix}-${id}-disk-${i}`, { host, baseImage: image, capacity: (grown ? 72 : 64) * MiB });
    new kvm.Domain(`${prefix}-${id}-vm-${i}`, {
      host,
      type: "qemu",
      memory: grown ? "160MiB" : "128MiB",
      shutdownTimeout: "5s",
      disks: [{ volume: disk }],
      networkInterfaces: [{ network: lab.KVM_LAB_NETWORK }],
      cloudInit: { hostname: `${prefix}-${id}-vm-${i}` },
      waitForIp: i === 0 ? { timeout: "3m", source: "lease" } : undefined,
    });
  }
}
