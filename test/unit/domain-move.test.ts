// What a move hands the new host: the old host's domain XML with each disk's file (and its
// base's) as the new host names them, and each NIC as a device XML with its link state.
import * as assert from "assert";
import { domainXml } from "../../provider/xml/domain";
import { interfacesWithLink, withDiskPaths } from "../../provider/xml/domain-move";

const xml = domainXml({
  name: "web",
  uuid: "0b5b6a7e-1a2b-4c3d-9e8f-001122334455",
  type: "qemu",
  vcpu: 1,
  maxVcpu: 1,
  memoryMiB: 128,
  maxMemoryMiB: 128,
  firmware: "bios",
  secureBoot: false,
  disks: [
    { path: "/a/web-disk", format: "qcow2", device: "disk", bus: "virtio", backing: { path: "/a/image", format: "qcow2" } },
    { path: "/a/data", format: "raw", device: "disk", bus: "virtio" },
  ],
  seedPath: "/a/web-seed.iso",
  interfaces: [{ network: "kvmlab", mac: "52:54:00:00:00:01", model: "virtio" }],
  qemuAgent: false,
  graphics: "none",
  owner: "web",
});

describe("a domain's move to another host", () => {
  it("names each disk, base and seed as the new host does, and leaves what it does not map", () => {
    const moved = withDiskPaths(
      xml,
      new Map([
        ["/a/web-disk", "/b/web-disk"],
        ["/a/image", "/b/image"],
        ["/a/web-seed.iso", "/b/web-seed.iso"],
      ]),
    );
    const files = [...moved.matchAll(/<source file="([^"]+)"/g)].map((m) => m[1]).sort();
    assert.deepStrictEqual(files, ["/a/data", "/b/image", "/b/web-disk", "/b/web-seed.iso"]);
    assert.ok(moved.includes("<uuid>0b5b6a7e-1a2b-4c3d-9e8f-001122334455</uuid>"), "the rest as it was");
  });

  it("gives each NIC with its MAC and the link state asked for, once", () => {
    const withLink = withDiskPaths(xml, new Map()).replace("<model", "<link state='up'/><model");
    for (const state of ["down", "up"] as const) {
      const [nic, ...more] = interfacesWithLink(withLink, state);
      assert.deepStrictEqual(more, []);
      assert.match(nic, /<mac address="52:54:00:00:00:01"\/>/);
      assert.deepStrictEqual(
        [...nic.matchAll(/<link state="(\w+)"\/>/g)].map((m) => m[1]),
        [state],
      );
    }
  });
});
