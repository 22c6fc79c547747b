// adopt: true on every kind, against objects made with virsh before any stack: each is
// taken over with its identity (key, UUID, MAC) kept, what an update can change is
// applied, what only a replace could change is refused naming the property, and a
// delete then removes it like any other.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { domainProvider } from "../../provider/kinds/domain/lifecycle";
import { imageProvider } from "../../provider/kinds/image/lifecycle";
import { networkProvider } from "../../provider/kinds/network/lifecycle";
import { storagePoolProvider } from "../../provider/kinds/storage-pool/lifecycle";
import { volumeProvider } from "../../provider/kinds/volume/lifecycle";
import { ResourceProvider } from "../../provider/resources/types";
import { checked } from "../support/checked";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { domainNames, networkNames, poolNames, virsh, volumeNames } from "../support/virsh";
import { unroutedSubnet } from "../support/subnet";
import { tempDir } from "../support/tmp";

describe("adopt", function () {
  this.timeout(600_000);
  const tag = `ad${process.pid}`;
  const tmp = tempDir("adopt-");
  const host = () => labHost(labEnv());
  const undo: (() => unknown)[] = [];
  after(async () => {
    for (const u of undo.reverse())
      await Promise.resolve()
        .then(u)
        .catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** create as Pulumi calls it after check; its error when it fails. */
  async function attempt<I, O>(p: ResourceProvider<I, O>, news: Partial<I>): Promise<{ outs?: O; err?: Error }> {
    try {
      return { outs: (await p.create(await checked(p, { host: host(), adopt: true, ...news } as I))).outs };
    } catch (err) {
      return { err: err as Error };
    }
  }

  it("Image: takes over a volume holding the source's bytes without uploading again; refuses other bytes, and a URL without sha256", async () => {
    const lab = labEnv();
    const name = `${tag}-image.qcow2`;
    virsh(["vol-create-as", lab.pool, name, "64M", "--format", "qcow2"]);
    virsh(["vol-upload", "--pool", lab.pool, name, lab.image]);
    const file = path.join(lab.poolDir, name);
    const inode = fs.statSync(file).ino;
    const { outs, err } = await attempt(imageProvider, { name, source: { path: lab.image } });
    assert.ok(outs, err?.message);
    undo.push(() => imageProvider.delete(outs.key, outs));
    assert.strictEqual(outs.sha256, crypto.createHash("sha256").update(fs.readFileSync(lab.image)).digest("hex"));
    assert.strictEqual(outs.format, "qcow2");
    assert.strictEqual(outs.key, file);
    assert.strictEqual(fs.statSync(file).ino, inode, "the same file: nothing uploaded");

    const other = `${tag}-other.raw`;
    virsh(["vol-create-as", lab.pool, other, "1M", "--format", "raw"]);
    undo.push(() => virsh(["vol-delete", "--pool", lab.pool, other]));
    const refused = await attempt(imageProvider, { name: other, source: { path: lab.image } });
    assert.match(
      refused.err?.message ?? "",
      new RegExp(
        `cannot adopt image default/${other}: source is "sha256 [0-9a-f]{64}" on the host but "sha256 [0-9a-f]{64}" in the program.*Only a replace could change that`,
      ),
    );
    const url = await attempt(imageProvider, { name: other, source: { url: "https://images.example.com/x.qcow2" } });
    assert.match(url.err?.message ?? "", /source\.sha256: cannot adopt image .*without a checksum.*Give source\.sha256/);
    assert.ok(volumeNames(lab).includes(other), "a refused adoption changes nothing");

    virsh(["vol-delete", "--pool", lab.pool, other]);
    undo.pop();
    await imageProvider.delete(outs.key, outs);
    undo.splice(undo.length - 1, 1);
    assert.ok(!volumeNames(lab).includes(name), "delete removes an adopted image like any other");
  });

  it("Volume: grows a smaller one in place; refuses another format or a shrink, naming the property", async () => {
    const lab = labEnv();
    const name = `${tag}-data.qcow2`;
    virsh(["vol-create-as", lab.pool, name, "16M", "--format", "qcow2"]);
    const key = path.join(lab.poolDir, name);
    undo.push(() => virsh(["vol-delete", "--pool", lab.pool, name]));
    const raw = await attempt(volumeProvider, { name, capacity: "16MiB", format: "raw" });
    assert.match(
      raw.err?.message ?? "",
      new RegExp(
        `^root@127\\.0\\.0\\.1:\\d+: cannot adopt volume default/${name}: format is "qcow2" on the host but "raw" in the program.*nothing was changed`,
      ),
    );
    const smaller = await attempt(volumeProvider, { name, capacity: "8MiB" });
    assert.match(smaller.err?.message ?? "", /cannot adopt volume .*capacity is 16777216 on the host but 8388608 in the program/);
    const { outs, err } = await attempt(volumeProvider, { name, capacity: "32MiB" });
    assert.ok(outs, err?.message);
    assert.strictEqual(outs.key, key);
    assert.strictEqual(outs.capacityBytes, 32 << 20);
    undo.pop();
    await volumeProvider.delete(outs.key, outs);
    assert.ok(!volumeNames(lab).includes(name));
  });

  it("Domain: takes over a running VM made with virsh, keeping its UUID and MAC, with the program's definition and the ownership marker", async () => {
    const lab = labEnv();
    const name = `${tag}-vm`;
    const base = `${tag}-base.qcow2`;
    const disk = `${tag}-vm.qcow2`;
    virsh(["vol-create-as", lab.pool, base, "64M", "--format", "qcow2"]);
    virsh(["vol-upload", "--pool", lab.pool, base, lab.image]);
    virsh(["vol-create-as", lab.pool, disk, "64M", "--format", "qcow2", "--backing-vol", base, "--backing-vol-format", "qcow2"]);
    undo.push(
      () => virsh(["vol-delete", "--pool", lab.pool, base]),
      () => virsh(["vol-delete", "--pool", lab.pool, disk]),
    );
    const xml = path.join(tmp, "vm.xml");
    fs.writeFileSync(
      xml,
      `<domain type="qemu"><name>${name}</name><memory unit="MiB">128</memory><vcpu>1</vcpu><os><type arch="x86_64">hvm</type><boot dev="hd"/></os><features><acpi/></features>
      <devices><disk type="file" device="disk"><driver name="qemu" type="qcow2"/><source file="${path.join(lab.poolDir, disk)}"/><target dev="vda" bus="virtio"/></disk>
      <interface type="network"><source network="${lab.network}"/><model type="virtio"/></interface><serial type="pty"/></devices></domain>`,
    );
    virsh(["define", xml]);
    undo.push(
      () => {
        try {
          virsh(["destroy", name]);
        } catch {
          /* not running */
        }
      },
      () => virsh(["undefine", name]),
    );
    virsh(["start", name]);
    const uuid = virsh(["domuuid", name]);
    const mac = /<mac address='([^']+)'/.exec(virsh(["dumpxml", name]))![1];

    // an overlay given by name says its format and its base: neither is read from the file
    const disks = [{ volume: disk, format: "qcow2" as const, backing: { path: path.join(lab.poolDir, base), format: "qcow2" as const } }];
    const uefi = await attempt(domainProvider, {
      name,
      type: "qemu",
      firmware: "uefi",
      disks,
      networkInterfaces: [{ network: lab.network }],
    });
    assert.match(uefi.err?.message ?? "", new RegExp(`cannot adopt domain "${name}": firmware is "bios" on the host but "uefi" in the program`));
    assert.strictEqual(virsh(["domstate", name]), "running", "a refused adoption leaves the VM as it was");

    const { outs, err } = await attempt(domainProvider, {
      name,
      type: "qemu",
      memory: "160MiB",
      shutdownTimeout: "10s",
      disks,
      networkInterfaces: [{ network: lab.network }],
      cloudInit: { hostname: name },
      waitForIp: { timeout: "240s", source: "lease" },
    });
    assert.ok(outs, err?.message);
    undo.push(() => domainProvider.delete(outs.uuid, outs));
    assert.strictEqual(outs.uuid, uuid, "the same domain");
    assert.strictEqual(outs.interfaces[0].mac, mac, "its MAC kept");
    assert.strictEqual(outs.memory, 160);
    assert.strictEqual(outs.state, "running");
    assert.match(outs.ipAddress ?? "", /^192\.168\.150\.\d+$/);
    assert.match(virsh(["dumpxml", name]), /xmlns:pulumikvm/, "it carries the ownership marker now");
    assert.ok(volumeNames(lab).includes(`${name}-seed.iso`), "and the program's cloud-init seed");
    await domainProvider.delete(outs.uuid, outs);
    assert.ok(!domainNames().includes(name), "delete removes it like any other");
    assert.ok(!volumeNames(lab).includes(`${name}-seed.iso`));
  });

  it("StoragePool: starts and autostarts a defined, stopped pool; refuses one in another directory", async () => {
    const name = `${tag}-pool`;
    const dir = `/var/lib/libvirt/${name}`;
    virsh(["pool-define-as", name, "dir", "--target", dir]);
    virsh(["pool-build", name]);
    undo.push(() => virsh(["pool-undefine", name]));
    const moved = await attempt(storagePoolProvider, { name, path: `${dir}-elsewhere` });
    assert.match(moved.err?.message ?? "", new RegExp(`cannot adopt storage pool "${name}": path is "${dir}" on the host but "${dir}-elsewhere"`));
    const { outs, err } = await attempt(storagePoolProvider, { name, path: dir });
    assert.ok(outs, err?.message);
    undo.pop();
    assert.strictEqual(outs.state, "running");
    assert.match(virsh(["pool-info", name]), /State:\s+running[\s\S]*Autostart:\s+yes/);
    await storagePoolProvider.delete(outs.uuid, outs);
    assert.ok(!poolNames().includes(name) && !fs.existsSync(dir));
  });

  it("Network: takes over a running network, adding the program's DHCP reservation in place", async () => {
    const name = `${tag}-net`;
    const subnet = unroutedSubnet("192.168.176");
    const xml = path.join(tmp, "net.xml");
    fs.writeFileSync(
      xml,
      `<network><name>${name}</name><ip address="${subnet}.1" netmask="255.255.255.0"><dhcp><range start="${subnet}.100" end="${subnet}.199"/></dhcp></ip></network>`,
    );
    virsh(["net-define", xml]);
    virsh(["net-start", name]);
    undo.push(
      () => virsh(["net-destroy", name]),
      () => virsh(["net-undefine", name]),
    );
    const uuid = virsh(["net-uuid", name]);
    const { outs, err } = await attempt(networkProvider, {
      name,
      mode: "isolated",
      addresses: [`${subnet}.1/24`],
      dhcp: { start: `${subnet}.100`, end: `${subnet}.199`, hosts: [{ mac: "52:54:00:ad:00:01", ip: `${subnet}.5` }] },
    });
    assert.ok(outs, err?.message);
    undo.splice(-2);
    assert.strictEqual(outs.uuid, uuid);
    assert.match(virsh(["net-dumpxml", name]), new RegExp(`<host mac='52:54:00:ad:00:01' ip='${subnet.replace(/\./g, "\\.")}\\.5'/>`));
    assert.match(virsh(["net-info", name]), /Autostart:\s+yes/);
    await networkProvider.delete(outs.uuid, outs);
    assert.ok(!networkNames().includes(name));
  });
});
