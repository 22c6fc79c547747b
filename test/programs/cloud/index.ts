// A Debian cloud image booted the way users boot one: an Image from the file, an overlay
// Volume per VM, and a Domain with cloud-init per firmware (BIOS and UEFI side by side).
// Each VM has a DHCP NIC on the lab's LAN and a static address on the no-DHCP network,
// set by network-config and matched by a pinned MAC. The BIOS VM's first NIC is on the lab
// network; the UEFI VM's is a direct (macvtap) NIC on a host device of that LAN, whose
// address only the guest agent can tell. A third VM is what a Windows 11 or measured-boot VM
// needs: Secure Boot with the distribution's keys (on q35), an emulated TPM 2.0, and a
// watchdog the Domain has no input for, added by an XML patch. It takes no vCPU or memory
// change live (Debian's OVMF with SMM was seen to hang the guest on a vCPU hot-add under
// software emulation), only the data disk.
//   prefix       names of every object (a per-run tag)
//   publicKey    the key user-data installs for the default user
//   memory       MiB of each VM, vcpu its vCPUs (the update steps change them live)
//   maxMemory, maxVcpu   their ceilings
//   extras       "true": a data disk and a third NIC, attached to the running VMs
//   edit         a line user-data writes to /etc/pulumi-kvm-edit (an edit of cloud-init)
//   snapshot     "bios" or "both": a Snapshot with memory of the BIOS VM (and of the UEFI VM)
import * as pulumi from "@pulumi/pulumi";
import * as kvm from "pulumi-kvm";
import { lab, labHost } from "./lab";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const host = labHost();
const image = new kvm.Image(`${prefix}-debian`, { host, source: { path: lab.KVM_LAB_CLOUD_IMAGE } });

const firmwares = [
  // BIOS takes its address from the DHCP lease, UEFI from the qemu guest agent
  { firmware: "bios" as const, n: 1, source: "lease" as const },
  { firmware: "uefi" as const, n: 2, source: "agent" as const },
];
/** The user-data every VM runs: the test's key, a file per VM, the edit (a restart), a runcmd. */
function userData(vm: string): string {
  const edit = config.get("edit");
  return [
    "#cloud-config",
    "ssh_authorized_keys:",
    `  - ${config.require("publicKey")}`,
    "write_files:",
    "  - path: /etc/pulumi-kvm-e2e",
    `    content: "written for ${vm}\\n"`,
    ...(edit ? ["  - path: /etc/pulumi-kvm-edit", `    content: "${edit}\\n"`] : []),
    "runcmd:",
    "  - [sh, -c, 'echo ran >> /var/lib/pulumi-kvm-runcmd']",
    "",
  ].join("\n");
}

const vms = firmwares.map(({ firmware, n, source }) => {
  const name = `${prefix}-${firmware}`;
  const macs = [`52:54:00:c1:00:0${n}`, `52:54:00:c1:01:0${n}`];
  const disk = new kvm.Volume(`${name}-disk`, { host, baseImage: image, capacity: "4GiB" });
  const extras = config.getBoolean("extras");
  const data = extras ? [{ volume: new kvm.Volume(`${name}-data`, { host, capacity: "64MiB" }) }] : [];
  return new kvm.Domain(name, {
    host,
    type: "qemu",
    firmware,
    vcpu: config.getNumber("vcpu") ?? 1,
    memory: Number(config.require("memory")),
    maxVcpu: config.getNumber("maxVcpu"),
    maxMemory: config.getNumber("maxMemory"),
    qemuAgent: true,
    shutdownTimeout: "90s",
    disks: [{ volume: disk }, ...data],
    networkInterfaces: [
      firmware === "uefi" ? { direct: { dev: lab.KVM_LAB_DIRECT_DEV }, mac: macs[0] } : { network: lab.KVM_LAB_NETWORK, mac: macs[0] },
      { network: lab.KVM_LAB_NETWORK_NODHCP, mac: macs[1] },
      ...(extras ? [{ network: lab.KVM_LAB_NETWORK_NODHCP, mac: `52:54:00:c1:02:0${n}` }] : []),
    ],
    cloudInit: {
      hostname: `e2e-${firmware}`,
      userData: userData(firmware),
      vendorData: "#!/bin/sh\necho vendor >> /var/lib/pulumi-kvm-vendor\n",
      networkConfig: [
        "version: 2",
        "ethernets:",
        "  lan:",
        `    match: { macaddress: "${macs[0]}" }`,
        "    dhcp4: true",
        "  lab:",
        `    match: { macaddress: "${macs[1]}" }`,
        `    addresses: [192.168.151.${20 + n}/24]`,
        "",
      ].join("\n"),
    },
    waitForIp: { source, timeout: "10m", family: "ipv4" },
  });
});

const snapshotOf = config.get("snapshot");
vms
  .filter((_vm, i) => snapshotOf === "both" || (snapshotOf === "bios" && i === 0))
  .map((vm, i) => new kvm.Snapshot(`${prefix}-${firmwares[i].firmware}-before`, { host, domain: vm, memory: true, description: "before a risky change" }));

const secureName = `${prefix}-secure`;
const secureData = config.getBoolean("extras") ? [{ volume: new kvm.Volume(`${secureName}-data`, { host, capacity: "64MiB" }) }] : [];
const secure = new kvm.Domain(secureName, {
  host,
  type: "qemu",
  firmware: "uefi",
  secureBoot: true,
  tpm: {},
  xmlPatches: [{ xpath: "/domain/devices", add: "<watchdog model='i6300esb' action='reset'/>" }],
  memory: 1024,
  qemuAgent: true,
  shutdownTimeout: "90s",
  disks: [{ volume: new kvm.Volume(`${secureName}-disk`, { host, baseImage: image, capacity: "4GiB" }) }, ...secureData],
  networkInterfaces: [{ network: lab.KVM_LAB_NETWORK, mac: "52:54:00:c1:00:03" }],
  cloudInit: { hostname: "e2e-secure", userData: userData("secure") },
  waitForIp: { source: "lease", timeout: "10m", family: "ipv4" },
});

export const uuids = vms.map((vm) => vm.uuid);
export const secureIp = secure.ipAddress;
export const secureUuid = secure.uuid;
export const ips = vms.map((vm) => vm.ipAddress);
