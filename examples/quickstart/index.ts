// Quickstart: a distribution's cloud image, a copy-on-write disk over it, and a VM that
// boots it with cloud-init and waits for its IP address. Everything comes from stack
// config, so the program is copied into a new project as it is:
//
//   pulumi config set address hv1.example.com                 # the libvirt host (required)
//   pulumi config set user root                               # default root
//   pulumi config set privateKeyPath ~/.ssh/id_ed25519        # default: ~/.ssh/config, the agent, ~/.ssh/id_*
//   pulumi config set imagePath ./debian-12-genericcloud-amd64.qcow2
//   #  or: pulumi config set imageUrl https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2
//   #      pulumi config set imageChecksumUrl https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS
//   pulumi config set sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)"   # for the image's default user
//   pulumi up
//
// Optional: port, knownHostsPath, pool (default), network (default), prefix (names of the
// objects; default quickstart), memory (1GiB), vcpu (1), diskSize (the image's size),
// domainType (kvm; qemu where the host has no /dev/kvm), userData (a secret cloud-config).
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";

const config = new pulumi.Config();

const host: kvm.HostArgs = {
  address: config.require("address"),
  port: config.getNumber("port"),
  user: config.get("user") ?? "root",
  // an inline key (pulumi config set --secret privateKey "$(cat key)") wins over a path
  privateKey: config.getSecret("privateKey"),
  passphrase: config.getSecret("passphrase"),
  privateKeyPath: config.get("privateKeyPath"),
  knownHostsPath: config.get("knownHostsPath"),
};
const pool = config.get("pool") ?? "default";
// names of the objects on the host: another stack of this program on the same host sets its own prefix
const prefix = config.get("prefix") ?? "quickstart";

const imagePath = config.get("imagePath");
const imageUrl = config.get("imageUrl");
if (!imagePath === !imageUrl) throw new Error("set exactly one of the stack configs imagePath (a local image file) and imageUrl");
const source: kvm.ImageSourceArgs = imagePath
  ? { path: imagePath }
  : { url: imageUrl, sha256: config.get("imageSha256"), sha512: config.get("imageSha512"), checksumUrl: config.get("imageChecksumUrl") };
const image = new kvm.Image(`${prefix}-image`, { host, pool, source });

// the disk takes the image's size unless diskSize asks for more
const disk = new kvm.Volume(`${prefix}-disk`, { host, pool, baseImage: image, capacity: config.get("diskSize") });

const sshKey = config.get("sshPublicKey");
const userData =
  config.getSecret("userData") ?? `#cloud-config\npackage_update: false\n${sshKey ? `ssh_authorized_keys:\n  - ${JSON.stringify(sshKey)}\n` : ""}`;

const vm = new kvm.Domain(`${prefix}-vm`, {
  host,
  type: (config.get("domainType") as "kvm" | "qemu" | undefined) ?? "kvm",
  vcpu: config.getNumber("vcpu") ?? 1,
  // enough for Debian's and Ubuntu's cloud images
  memory: config.get("memory") ?? "1GiB",
  disks: [{ volume: disk }],
  networkInterfaces: [{ network: config.get("network") ?? "default" }],
  cloudInit: { hostname: "quickstart", userData },
  waitForIp: { timeout: "5m" },
  shutdownTimeout: "30s",
});

export const ip = vm.ipAddress;
export const uuid = vm.uuid;
