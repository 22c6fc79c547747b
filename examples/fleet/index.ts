// Fleet: N VMs spread round-robin over two hosts, one Image per host. On the lab the
// two "hosts" are its two sshd (ports 2222 and 2223) in front of the same libvirtd.
//
//   pulumi config set count 10
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { labDefaults } from "../lab";

const config = new pulumi.Config();
const lab = labDefaults();
const count = config.getNumber("count") ?? 2;
const hosts: { id: string; host: kvm.HostArgs }[] = [
  { id: "a", port: Number(config.get("portA") ?? lab.KVM_LAB_PORT ?? 22), address: config.get("addressA") ?? lab.KVM_LAB_HOST },
  { id: "b", port: Number(config.get("portB") ?? lab.KVM_LAB_PORT2 ?? 22), address: config.get("addressB") ?? lab.KVM_LAB_HOST },
].map(({ id, port, address }) => {
  if (!address) throw new Error(`set the stack config addressA/addressB or start the lab (scripts/lab up)`);
  return { id, host: { address, port, user: config.get("user") ?? lab.KVM_LAB_USER ?? "root", privateKeyPath: config.get("privateKeyPath") ?? lab.KVM_LAB_KEY, knownHostsPath: config.get("knownHostsPath") ?? lab.KVM_LAB_KNOWN_HOSTS } };
});
const imagePath = config.get("imagePath") ?? lab.KVM_LAB_IMAGE;
if (!imagePath) throw new Error("set the stack config imagePath or start the lab");
const network = config.get("network") ?? lab.KVM_LAB_NETWORK ?? "default";
const type = (config.get("domainType") as "kvm" | "qemu" | undefined) ?? (lab.KVM_LAB_HOST ? "qemu" : "kvm");

const images = hosts.map(({ id, host }) => new kvm.Image(`fleet-image-${id}`, { host, source: { path: imagePath } }));

const vms = Array.from({ length: count }, (_, i) => {
  const h = i % hosts.length;
  const { host } = hosts[h];
  const disk = new kvm.Volume(`fleet-disk-${i}`, { host, baseImage: images[h] });
  return new kvm.Domain(`fleet-vm-${i}`, {
    host, type, memory: "256MiB", disks: [{ volume: disk }], networkInterfaces: [{ network }],
    cloudInit: { hostname: `fleet-vm-${i}` }, waitForIp: { timeout: "5m" }, shutdownTimeout: "30s",
  });
});

export const ips = vms.map((vm) => vm.ipAddress);
