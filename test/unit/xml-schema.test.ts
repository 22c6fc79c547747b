// Every shape of domain, volume, pool and network XML the provider builds passes libvirt's own schema:
// each optional input absent and present, from the inputs a user writes (through check's
// DomainSpec) to the XML sent to libvirt.
import { DomainInputs } from "../../provider/kinds/domain/inputs";
import { specOf } from "../../provider/kinds/domain/spec";
import { DiskSpec, domainXml } from "../../provider/xml/domain";
import { volumeXml } from "../../provider/xml/volume";
import { poolXml } from "../../provider/xml/pool";
import { networkXml } from "../../provider/xml/network";
import { NetworkInputs, specOf as networkSpecOf } from "../../provider/kinds/network/inputs";
import { assertValidXml } from "../support/xml-schema";

const host = { address: "hv1", user: "root" };
const base: DomainInputs = { host, name: "vm", disks: [{ volume: "disk" }] };
const overlay: DiskSpec = { path: "/pool/disk.qcow2", format: "qcow2", device: "disk", bus: "virtio", backing: { path: "/pool/base.qcow2", format: "qcow2" } };
const raw: DiskSpec = { path: "/pool/data.raw", format: "raw", device: "disk", bus: "virtio" };
const iso: DiskSpec = { path: "/pool/installer.iso", format: "raw", device: "cdrom", bus: "sata" };

const domains: [string, DomainInputs, DiskSpec[], string?][] = [
  ["the smallest domain", base, [raw]],
  ["an overlay disk with its backing chain and a seed", { ...base, cloudInit: { userData: "#cloud-config\n" } }, [overlay], "/pool/vm-seed.iso"],
  ["UEFI (no secure boot whatever the machine)", { ...base, firmware: "uefi" }, [overlay]],
  ["UEFI on q35 with a machine version", { ...base, firmware: "uefi", machine: "pc-q35-7.2" }, [overlay]],
  ["Secure Boot with a TPM 2.0 (defaults)", { ...base, firmware: "uefi", secureBoot: true, machine: "q35", tpm: {} }, [overlay]],
  ["a TPM 1.2 on tpm-tis", { ...base, tpm: { version: "1.2", model: "tpm-tis" } }, [raw]],
  [
    "every option",
    {
      ...base,
      type: "qemu",
      vcpu: 2,
      memory: 1024,
      machine: "q35",
      cpuMode: "host-passthrough",
      qemuAgent: true,
      graphics: "vnc",
      networkInterfaces: [{ network: "default", mac: "52:54:00:aa:bb:cc" }, { bridge: "br0", model: "e1000" }, { network: "lab" }],
    },
    [
      overlay,
      raw,
      { ...raw, path: "/pool/s.raw", bus: "sata" },
      { ...raw, path: "/pool/scsi.raw", bus: "scsi" },
      { ...raw, path: "/pool/ide.raw", bus: "ide" },
    ],
    "/pool/vm-seed.iso",
  ],
  ["spice graphics", { ...base, graphics: "spice" }, [raw]],
  ["direct kernel boot", { ...base, kernel: "/boot/vmlinuz", initrd: "/boot/initrd.img", cmdline: "console=ttyS0" }, [raw]],
  ["a kernel without initrd or cmdline", { ...base, kernel: "/boot/vmlinuz" }, [raw]],
  ["an installer cdrom first", { ...base, disks: [{ volume: "installer.iso", device: "cdrom", bus: "sata" }, { volume: "disk" }] }, [iso, raw]],
  ["a kept UUID and MAC", { ...base, networkInterfaces: [{ network: "default" }] }, [raw]],
  [
    "direct (macvtap) NICs in each mode",
    { ...base, networkInterfaces: [{ direct: { dev: "eth0" } }, { direct: { dev: "eth1", mode: "vepa" } }, { direct: { dev: "eno1", mode: "passthrough" } }] },
    [raw],
  ],
  [
    "every disk option (boot order, cache, discard, serial, read-only)",
    base,
    [
      { ...overlay, bootOrder: 2, cache: "none", discard: "unmap", serial: "os-disk_1" },
      { ...raw, bootOrder: 1, cache: "writeback", discard: "ignore", serial: "data.2", readonly: true },
      { ...iso, cache: "unsafe" },
    ],
    "/pool/vm-seed.iso",
  ],
];

describe("libvirt's schema", () => {
  for (const [what, inputs, disks, seed] of domains) {
    it(`accepts the domain XML for ${what}`, () => {
      assertValidXml(domainXml(specOf(inputs, disks, seed, "pulumi-resource", ["52:54:00:11:22:33"], "0b5b6a7e-1a2b-4c3d-9e8f-001122334455")), "domain");
    });
  }
  it("accepts the volume XML for raw, qcow2 and an overlay", () => {
    assertValidXml(volumeXml({ name: "a.raw", capacityBytes: 1 << 30, format: "raw" }), "storagevol");
    assertValidXml(volumeXml({ name: "a.qcow2", capacityBytes: 10 * (1 << 30), format: "qcow2" }), "storagevol");
    assertValidXml(
      volumeXml({ name: "b.qcow2", capacityBytes: 10 * (1 << 30), format: "qcow2", backing: { path: "/pool/a.qcow2", format: "qcow2" } }),
      "storagevol",
    );
  });
  it("accepts the storage pool XML", () => {
    assertValidXml(poolXml({ name: "fast", type: "dir", path: "/srv/nvme/images" }), "storagepool");
  });

  const net: NetworkInputs = { host, name: "lab", mode: "isolated", addresses: ["192.168.171.1/24"] };
  const networks: [string, NetworkInputs][] = [
    ["an isolated network, no DHCP", net],
    [
      "NAT with DHCP, reservations (with and without a name) and a DNS domain",
      {
        ...net,
        mode: "nat",
        domain: "lab.internal",
        dhcp: {
          start: "192.168.171.100",
          end: "192.168.171.199",
          hosts: [
            { mac: "52:54:00:00:00:01", ip: "192.168.171.10", name: "db" },
            { mac: "52:54:00:00:00:02", ip: "192.168.171.11" },
          ],
        },
      },
    ],
    [
      "a routed network on a named bridge with IPv4 and IPv6",
      {
        ...net,
        mode: "route",
        bridge: "virbr9",
        addresses: ["192.168.171.1/24", "fd00:171::1/64"],
        dhcp: { start: "192.168.171.100", end: "192.168.171.199" },
      },
    ],
    ["bridge mode on the host's bridge", { host, name: "lan", mode: "bridge", bridge: "br0" }],
  ];
  for (const [what, inputs] of networks) {
    it(`accepts the network XML for ${what}`, () => {
      assertValidXml(networkXml(networkSpecOf(inputs)), "network");
    });
  }

  it("refuses XML libvirt would refuse (the check can fail)", () => {
    let refused = false;
    try {
      assertValidXml("<domain type='qemu'><name>x</name><bogus/></domain>", "domain");
    } catch {
      refused = true;
    }
    if (!refused) throw new Error("virt-xml-validate accepted an invalid domain");
  });
});
