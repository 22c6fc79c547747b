// Fleet: N VMs spread round-robin over two hosts, one Image per host. Everything comes
// from stack config:
//
//   pulumi config set addressA hv1.example.com    # and portA (default 22)
//   pulumi config set addressB hv2.example.com    # and portB
//   pulumi config set imagePath ./debian-12-genericcloud-amd64.qcow2
//   pulumi config set count 10
//
// Optional: user (root), privateKeyPath, knownHostsPath, network (default), memory (1GiB),
// domainType (kvm; qemu where a host has no /dev/kvm).
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";

const config = new pulumi.Config();
const count = config.getNumber("count") ?? 2;
const hosts = (["A", "B"] as const).map((id) => ({
  id: id.toLowerCase(),
  host: {
    address: config.require(`address${id}`),
    port: config.getNumber(`port${id}`),
    user: config.get("user") ?? "root",
    privateKeyPath: config.get("privateKeyPath"),
    knownHostsPath: config.get("knownHostsPath"),
  } satisfies kvm.HostArgs,
}));
const imagePath = config.require("imagePath");
const network = config.get("network") ?? "default";
const type = (config.get("domainType") as "kvm" | "qemu" | undefined) ?? "kvm";
const memory = config.get("memory") ?? "1GiB";

const images = hosts.map(({ id, host }) => new kvm.Image(`fleet-image-${id}`, { host, source: { path: imagePath } }));

const vms = Array.from({ length: count }, (_, i) => {
  const h = i % hosts.length;
  const { host } = hosts[h];
  const disk = new kvm.Volume(`fleet-disk-${i}`, { host, baseImage: images[h] });
  return new kvm.Domain(`fleet-vm-${i}`, {
    host,
    type,
    memory,
    disks: [{ volume: disk }],
    networkInterfaces: [{ network }],
    cloudInit: { hostname: `fleet-vm-${i}` },
    waitForIp: { timeout: "5m" },
    shutdownTimeout: "30s",
  });
});

export const ips = vms.map((vm) => vm.ipAddress);
