// The read-only lookups (getDomain, getNetwork, getVolume, getStoragePool, getHost) against
// the lab, each checked against what virsh says, as a program's own process runs them.
import * as assert from "assert";
import { lookupOnce } from "../../provider/resources/lookups";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { virsh } from "../support/virsh";

describe("lookups", function () {
  this.timeout(60_000);
  const lab = () => labEnv();

  it("getHost: the versions, CPUs and memory virsh reports, and the lab's pool with its free space", async () => {
    const h = await lookupOnce("getHost", labHost(lab()), {});
    const info = virsh(["nodeinfo"]);
    assert.strictEqual(h.cpus, Number(/^CPU\(s\):\s+(\d+)/m.exec(info)![1]));
    assert.strictEqual(h.memoryBytes, Number(/^Memory size:\s+(\d+) KiB/m.exec(info)![1]) * 1024);
    assert.strictEqual(h.cpuModel, /^CPU model:\s+(\S+)/m.exec(info)![1]);
    assert.match(virsh(["version"]), new RegExp(`libvirt ${String(h.libvirtVersion).replace(/\./g, "\\.")}`));
    assert.match(virsh(["version"]), new RegExp(`hypervisor: QEMU ${String(h.hypervisorVersion).replace(/\./g, "\\.")}`));
    assert.strictEqual(h.hostname, virsh(["hostname"]));
    assert.ok((h.pools as { name: string; availableBytes: number }[]).some((p) => p.name === lab().pool && p.availableBytes > 0));
  });

  it("getNetwork, getStoragePool and getVolume: what virsh says of them; a name the host lacks fails naming how to list", async () => {
    const host = labHost(lab());
    const net = await lookupOnce("getNetwork", host, { name: lab().network });
    assert.strictEqual(net.uuid, virsh(["net-uuid", lab().network]));
    assert.strictEqual(net.active, true);
    const pool = await lookupOnce("getStoragePool", host, { name: lab().pool });
    assert.strictEqual(pool.path, lab().poolDir);
    assert.strictEqual(pool.state, "running");
    const volName = `lookup${process.pid}.raw`;
    virsh(["vol-create-as", lab().pool, volName, "1M", "--format", "raw"]);
    try {
      const vol = await lookupOnce("getVolume", host, { name: volName, pool: lab().pool });
      assert.strictEqual(vol.key, virsh(["vol-key", "--pool", lab().pool, volName]));
      assert.strictEqual(vol.capacityBytes, 1024 * 1024);
    } finally {
      virsh(["vol-delete", "--pool", lab().pool, volName]);
    }
    await assert.rejects(
      lookupOnce("getDomain", host, { name: "no-such-domain-here" }),
      /there is no domain no-such-domain-here on this host.*virsh list --all/s,
    );
    await assert.rejects(lookupOnce("getDomain", host, { nmae: "x", name: "y" }), /getDomain takes no argument "nmae".*Its arguments are host, name/s);
  });
});
