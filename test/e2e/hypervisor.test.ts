// From a bare host to a running VM with Pulumi alone, through the real CLI: a storage
// pool and an isolated network with DHCP made by the program, an Image, an overlay and a
// full copy in that pool, a volume made with `virsh vol-create-as` adopted, a VM on the
// new network that gets its address from it; a DHCP reservation added in place; a raw
// volume whose "guest" wrote a qcow2 header naming a host file, grown without touching it;
// pulumi-kvm health --stack over all of it, a network stopped out of band found as drift
// and started again by up --refresh; a preview with no changes; and a destroy that removes everything, adopted volume, pool
// (and its directory) and network included.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import { execFileSync } from "child_process";
import { e2eStack, E2eStack } from "../support/pulumi";
import { runCli } from "../support/cli";
import { installedCli, legProject, programFiles, programIn, testLegs, programEnv } from "../support/package";
import { unroutedSubnet } from "../support/subnet";
import { domainNames, networkNames, poolNames, virsh } from "../support/virsh";

const leg = testLegs()[0];

describe(`e2e [${leg.name}]: a bare hypervisor set up from Pulumi alone`, function () {
  this.timeout(900_000);
  const prefix = `hv${process.pid}`;
  let subnet = "";
  const poolName = `${prefix}-pool`;
  const netName = `${prefix}-net`;
  const poolDir = `/var/lib/libvirt/${poolName}`;
  let e: E2eStack | undefined;
  let dir: string;

  before(async () => {
    subnet = unroutedSubnet("192.168.172");
    dir = programIn(legProject(leg), "hypervisor", programFiles("hypervisor"));
    e = await e2eStack(dir, prefix, { prefix, subnet }, programEnv(legProject(leg)));
  });
  after(async () => {
    if (e) {
      await e.stack.destroy().catch(() => undefined);
      await e.remove();
    }
  });

  it("makes pool and network, images, an overlay, a copy and a VM on them; adopts a virsh volume; updates a reservation in place; destroys it all", async () => {
    // a plain preview first: the blank raw Volume's recorded base is unknown until it is made
    const first = await e!.stack.preview();
    assert.deepStrictEqual(first.changeSummary, { create: 10 });
    const up = await e!.stack.up();
    assert.strictEqual(up.summary.result, "succeeded", up.stderr);
    assert.deepStrictEqual(
      up.summary.resourceChanges,
      { create: 10 },
      "pool, network, image, overlay, copy, raw data and scratch volumes, filter, VM and the stack",
    );
    assert.match(virsh(["dumpxml", `${prefix}-vm`]), new RegExp(`<driver name='qemu' type='raw'/>\\s*<source file='${poolDir}/${prefix}-scratch'`));
    // the NIC is behind the filter given as the NetworkFilter itself
    assert.match(virsh(["dumpxml", `${prefix}-vm`]), new RegExp(`<filterref filter='${prefix}-filter'/>`));
    const filterUuid = /<uuid>([^<]+)<\/uuid>/.exec(virsh(["nwfilter-dumpxml", `${prefix}-filter`]))![1];

    // the pool runs, autostarts, and its directory was made
    assert.ok(poolNames().includes(poolName));
    assert.match(virsh(["pool-info", poolName]), /State:\s+running[\s\S]*Autostart:\s+yes/);
    assert.ok(fs.statSync(poolDir).isDirectory());
    assert.strictEqual(up.outputs.poolState.value, "running");
    // the overlay is backed by the image; the copy has no backing file: a full, independent copy
    assert.match(virsh(["vol-dumpxml", "--pool", poolName, `${prefix}-overlay`]), new RegExp(`<backingStore>\\s*<path>${poolDir}/${prefix}-image</path>`));
    assert.doesNotMatch(virsh(["vol-dumpxml", "--pool", poolName, `${prefix}-copy`]), /<backingStore>\s*<path>/);
    assert.strictEqual(up.outputs.copyFormat.value, "qcow2");
    // the network is isolated (no <forward>), active, autostarted, and leased the VM its address
    const netXml = virsh(["net-dumpxml", netName]);
    assert.doesNotMatch(netXml, /<forward/);
    assert.match(virsh(["net-info", netName]), /Active:\s+yes[\s\S]*Autostart:\s+yes/);
    assert.strictEqual(up.outputs.bridge.value, /<bridge name='([^']+)'/.exec(netXml)![1]);
    const ip = up.outputs.ip.value as string;
    assert.match(ip, new RegExp(`^${subnet.replace(/\./g, "\\.")}\\.(1\\d\\d)$`), "an address of the new network's DHCP range");
    assert.ok(virsh(["net-dhcp-leases", netName]).includes(ip));
    const uuid = /<uuid>([^<]+)<\/uuid>/.exec(netXml)![1];

    // what a guest can write into a raw disk: a qcow2 header claiming 64 MiB whose external data file is a host file
    const dataPath = up.outputs.dataPath.value as string;
    const victim = `/var/lib/libvirt/${prefix}-victim`;
    const hostile = `${dir}/hostile.qcow2`;
    execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", "-o", `data_file=${victim},data_file_raw=on`, hostile, "64M"]);
    const victimBytes = crypto.randomBytes(1 << 20);
    fs.writeFileSync(victim, victimBytes);
    virsh(["vol-upload", "--pool", poolName, `${prefix}-data`, hostile]);
    virsh(["pool-refresh", poolName]);
    const guestBytes = fs.readFileSync(dataPath);

    // a volume made outside Pulumi, adopted; a reservation added to the running network; the raw volume grown
    virsh(["vol-create-as", poolName, `${prefix}-adopted`, "16M", "--format", "qcow2"]);
    await e!.stack.setConfig("adopted", { value: "true" });
    await e!.stack.setConfig("reserved", { value: "true" });
    await e!.stack.setConfig("dataSize", { value: "32MiB" });
    const preview = await e!.stack.preview();
    assert.deepStrictEqual(
      preview.changeSummary,
      { create: 1, update: 3, same: 7 },
      "adopting plans a create, the reservation, the growth and the rules updates, no replace",
    );
    const second = await e!.stack.up();
    assert.strictEqual(second.summary.result, "succeeded", second.stderr);
    assert.deepStrictEqual(second.summary.resourceChanges, { create: 1, update: 3, same: 7 });
    // the filter's new rules, in place: the same filter
    const rules = virsh(["nwfilter-dumpxml", `${prefix}-filter`]);
    assert.match(rules, /<rule action='accept' direction='in' priority='100'>\s*<icmp\/>/);
    assert.ok(rules.includes(`<uuid>${filterUuid}</uuid>`), "the same filter, its rules changed in place");
    // grown as a raw file: the host file its header named is untouched, the guest's bytes kept
    assert.ok(fs.readFileSync(victim).equals(victimBytes), "the host file the guest's header named changed");
    const grown = fs.readFileSync(dataPath);
    assert.strictEqual(grown.length, 32 << 20);
    assert.ok(grown.subarray(0, 16 << 20).equals(guestBytes), "the guest's bytes were changed");
    assert.strictEqual(second.outputs.dataBytes.value, 32 << 20, "the stack records the file's size");
    fs.rmSync(victim);
    // the adopted volume was grown to the program's 32 MiB in place
    assert.match(virsh(["vol-info", "--pool", poolName, `${prefix}-adopted`]), /Capacity:\s+32\.00 MiB/);
    const reserved = virsh(["net-dumpxml", netName]);
    assert.match(reserved, new RegExp(`<host mac='52:54:00:5e:17:01' name='${prefix}-vm' ip='${subnet}.10'/>`));
    assert.ok(reserved.includes(`<uuid>${uuid}</uuid>`), "the same network, updated in place");
    // live as well: dnsmasq's hosts file has it, no restart needed
    assert.match(fs.readFileSync(`/var/lib/libvirt/dnsmasq/${netName}.hostsfile`, "utf8"), /52:54:00:5e:17:01,192\.168\.172\.10/);

    // pulumi-kvm health --stack knows the pool and the network; a network stopped out of band is drift, and up --refresh starts it
    const args = ["health", "--stack", e!.stack.name, "--cwd", dir, "--json"];
    const installed = { node: legProject(leg).node, cli: installedCli(legProject(leg)) };
    const healthy = await runCli(args, { env: e!.env, installed });
    assert.strictEqual(healthy.code, 0, healthy.stdout + healthy.stderr);
    const kinds = (out: string) =>
      JSON.parse(out)
        .resources.map((r: any) => [r.kind, r.name, r.status])
        .sort();
    assert.deepStrictEqual(
      kinds(healthy.stdout).filter((r: string[]) => r[0] === "StoragePool" || r[0] === "Network" || r[0] === "NetworkFilter"),
      [
        ["Network", netName, "ok"],
        ["NetworkFilter", `${prefix}-filter`, "ok"],
        ["StoragePool", poolName, "ok"],
      ],
    );
    assert.strictEqual(kinds(healthy.stdout).length, 10, "pool, network, image, five volumes, the filter, the VM");
    virsh(["net-destroy", netName]);
    const drift = await runCli(args, { env: e!.env, installed });
    assert.strictEqual(drift.code, 1);
    assert.match(JSON.parse(drift.stdout).resources.find((r: any) => r.name === netName).detail, /recorded active, host says not active/);
    const restarted = await e!.stack.up({ refresh: true });
    assert.strictEqual(restarted.summary.result, "succeeded", restarted.stderr);
    assert.match(virsh(["net-info", netName]), /Active:\s+yes/);

    const quiet = await e!.stack.preview();
    assert.deepStrictEqual(quiet.changeSummary, { same: 11 }, "no changes after the update");

    const down = await e!.stack.destroy();
    assert.strictEqual(down.summary.result, "succeeded", down.stderr);
    assert.ok(!poolNames().includes(poolName), "the pool is undefined");
    assert.ok(!fs.existsSync(poolDir), "the pool's directory is gone with its volumes, the adopted one included");
    assert.ok(!networkNames().includes(netName), "the network is undefined");
    assert.ok(!domainNames().includes(`${prefix}-vm`));
    assert.doesNotMatch(virsh(["nwfilter-list"]), new RegExp(`${prefix}-filter`), "the filter goes after its VM");
  });
});
