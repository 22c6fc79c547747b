// `count` blank raw Volumes and as many shut-off Domains on them, spread round-robin over
// the hosts of config `ports` (sshd on `address`): what `npm run bench` measures of a fleet.
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const hosts = config
  .require("ports")
  .split(",")
  .map((port): kvm.HostArgs => ({
    address: config.require("address"),
    port: Number(port),
    user: config.require("user"),
    privateKeyPath: config.require("key"),
    knownHostsPath: config.require("knownHosts"),
  }));

export const states = Array.from({ length: config.requireNumber("count") }, (_, i) => {
  const host = hosts[i % hosts.length];
  const disk = new kvm.Volume(`${prefix}-disk-${i}`, { host, capacity: 1 << 20 });
  return new kvm.Domain(`${prefix}-vm-${i}`, { host, type: "qemu", memory: "64MiB", running: false, disks: [{ volume: disk }] }).state;
});
