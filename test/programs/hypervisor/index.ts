// A bare hypervisor set up from Pulumi alone: a storage pool and an isolated network
// with DHCP of its own, an Image in that pool, an overlay and a full copy of it, and a
// VM on the new network that gets its address there, its NIC behind a network filter, with
// a blank raw Volume as a third disk (its base is unknown in a first preview).
//   prefix    names of every object
//   subnet    the network's /24, e.g. "192.168.172"
//   adopted   "true": also take over the volume "<prefix>-adopted" made with virsh
//   reserved  "true": a DHCP reservation for the VM's MAC (an in-place network update), and
//             the filter lets pings in (an in-place change of its rules)
//   dataSize  the capacity of a raw volume no VM uses (default "16MiB")
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const subnet = config.require("subnet");
const host = labHost();
const mac = "52:54:00:5e:17:01";

const pool = new kvm.StoragePool(`${prefix}-pool`, { host, path: `/var/lib/libvirt/${prefix}-pool` });
const net = new kvm.Network(`${prefix}-net`, {
  host,
  mode: "isolated",
  addresses: [`${subnet}.1/24`],
  dhcp: { start: `${subnet}.100`, end: `${subnet}.199`, hosts: config.getBoolean("reserved") ? [{ mac, ip: `${subnet}.10`, name: `${prefix}-vm` }] : [] },
});
const image = new kvm.Image(`${prefix}-image`, { host, pool: pool.name, source: { path: lab.KVM_LAB_IMAGE } });
const overlay = new kvm.Volume(`${prefix}-overlay`, { host, pool: pool.name, baseImage: image });
const copy = new kvm.Volume(`${prefix}-copy`, { host, pool: pool.name, cloneOf: image });
const data = new kvm.Volume(`${prefix}-data`, { host, pool: pool.name, format: "raw", capacity: config.get("dataSize") ?? "16MiB" });
if (config.getBoolean("adopted")) {
  new kvm.Volume(`${prefix}-adopted`, { host, pool: pool.name, capacity: "32MiB", adopt: true });
}
const scratch = new kvm.Volume(`${prefix}-scratch`, { host, pool: pool.name, format: "raw", capacity: "8MiB" });
const filter = new kvm.NetworkFilter(`${prefix}-filter`, {
  host,
  rules: [
    ...(config.getBoolean("reserved") ? [{ action: "accept" as const, direction: "in" as const, protocol: "icmp" as const, priority: 100 }] : []),
    { action: "drop", direction: "in", protocol: "tcp", ports: "8000-8080" },
  ],
});
const vm = new kvm.Domain(`${prefix}-vm`, {
  host,
  type: "qemu",
  memory: "128MiB",
  disks: [{ volume: overlay }, { volume: copy }, { volume: scratch }],
  networkInterfaces: [{ network: net.name, mac, filter }],
  cloudInit: { hostname: `${prefix}-vm` },
  waitForIp: { timeout: "3m" },
});

export const ip = vm.ipAddress;
export const bridge = net.bridge;
export const poolState = pool.state;
export const copyFormat = copy.format;
export const dataPath = data.path;
export const dataBytes = data.capacityBytes;
