// Quickstart: an Image from a local qcow2, a copy-on-write Volume over it, and a VM
// with a cloud-init hostname that waits for its IP address.
//
//   pulumi config set address hv1.example.com     # the libvirt host
//   pulumi config set user root
//   pulumi config set privateKeyPath ~/.ssh/id_ed25519
//   pulumi config set imagePath ./debian-12-genericcloud-amd64.qcow2
//   pulumi config set prefix web                   # object names (default "quickstart")
//   pulumi up
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { labDefaults } from "../lab";

const config = new pulumi.Config();
const lab = labDefaults();
const need = (key: string, labKey: string): string => {
  const v = config.get(key) ?? lab[labKey];
  if (!v) throw new Error(`set the stack config "${key}" (pulumi config set ${key} …) or start the lab (scripts/lab up)`);
  return v;
};

const host: kvm.HostArgs = {
  address: need("address", "KVM_LAB_HOST"),
  port: Number(config.get("port") ?? lab.KVM_LAB_PORT ?? 22),
  user: config.get("user") ?? lab.KVM_LAB_USER ?? "root",
  // an inline key (pulumi config set --secret privateKey "$(cat key)") wins over a path
  privateKey: config.getSecret("privateKey"),
  passphrase: config.getSecret("passphrase"),
  privateKeyPath: config.getSecret("privateKey") !== undefined ? undefined : config.get("privateKeyPath") ?? lab.KVM_LAB_KEY,
  knownHostsPath: config.get("knownHostsPath") ?? lab.KVM_LAB_KNOWN_HOSTS,
};
const pool = config.get("pool") ?? lab.KVM_LAB_POOL ?? "default";
// names of the objects on the host: another stack of this program on the same host
// sets its own prefix
const prefix = config.get("prefix") ?? "quickstart";

const image = new kvm.Image(`${prefix}-image`, { host, pool, source: { path: need("imagePath", "KVM_LAB_IMAGE") } });

const disk = new kvm.Volume(`${prefix}-disk`, { host, pool, baseImage: image, capacity: config.get("diskSize") ?? "1GiB" });

const vm = new kvm.Domain(`${prefix}-vm`, {
  host,
  // the lab has no /dev/kvm: software emulation there, KVM everywhere else
  type: (config.get("domainType") as "kvm" | "qemu" | undefined) ?? (lab.KVM_LAB_HOST ? "qemu" : "kvm"),
  vcpu: config.getNumber("vcpu") ?? 1,
  memory: config.get("memory") ?? "256MiB",
  disks: [{ volume: disk }],
  networkInterfaces: [{ network: config.get("network") ?? lab.KVM_LAB_NETWORK ?? "default" }],
  cloudInit: {
    hostname: "quickstart",
    userData: config.getSecret("userData") ?? "#cloud-config\npackage_update: false\n",
  },
  waitForIp: { timeout: "3m" },
  shutdownTimeout: "30s",
});

export const ip = vm.ipAddress;
export const uuid = vm.uuid;
