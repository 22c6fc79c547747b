// What the provider trusts, against the lab: a guest writes whatever it likes into its
// disks, and libvirt re-probes a file's header on every look. A raw volume whose guest
// wrote a qcow2 header naming /etc/shadow as its backing file is attached by name, copied
// and used as a base: nothing of /etc/shadow may reach a VM or a volume.
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { execFileSync } from "child_process";
import { domainProvider, DomainInputs, DomainOutputs } from "../../provider/resources/domain";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/resources/volume";
import { parseVolumeXml } from "../../provider/xml/volume";
import { checked } from "../support/checked";
import { diskOf } from "../support/disks";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { virsh, volumeNames } from "../support/virsh";

describe("trust: formats are recorded, never probed", function () {
  this.timeout(180_000);
  const tag = `tr${process.pid}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "trust-"));
  const volumes: VolumeOutputs[] = [];
  const domains: DomainOutputs[] = [];
  let data: VolumeOutputs;

  const volume = async (news: Partial<VolumeInputs>): Promise<VolumeOutputs> => {
    const { outs } = await volumeProvider.create(await checked(volumeProvider, { host: labHost(labEnv()), ...news } as VolumeInputs));
    volumes.unshift(outs);
    return outs;
  };
  const domain = async (news: Partial<DomainInputs>): Promise<DomainOutputs> => {
    const { outs } = await domainProvider.create(await checked(domainProvider, { host: labHost(labEnv()), type: "qemu", memory: "128MiB", running: false, ...news } as DomainInputs));
    domains.push(outs);
    return outs;
  };

  before(async () => {
    const lab = labEnv();
    data = await volume({ name: `${tag}-data`, format: "raw", capacity: "16MiB" });
    // what a guest can do from inside: write a qcow2 header that names a host file
    const hostile = path.join(tmp, "hostile.qcow2");
    execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", "-u", "-b", "/etc/shadow", "-F", "raw", hostile, "16M"]);
    virsh(["vol-upload", "--pool", lab.pool, data.name, hostile]);
    const probed = parseVolumeXml(virsh(["vol-dumpxml", "--pool", lab.pool, data.name]));
    assert.strictEqual(probed.format, "qcow2", "libvirt now reads the raw volume as a qcow2 (the premise of these tests)");
    assert.strictEqual(probed.backingPath, "/etc/shadow");
  });

  after(async () => {
    for (const d of domains) await domainProvider.delete(d.uuid, d).catch(() => undefined);
    for (const v of volumes) await volumeProvider.delete(v.key, v).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("attaches it by name as the raw disk it was declared, with no backing chain, and as the Volume it was recorded; by name without a format it is refused", async () => {
    const bare = await domainProvider.check(undefined, { host: labHost(labEnv()), name: `${tag}-bare`, type: "qemu", disks: [{ volume: data.name }] } as DomainInputs);
    assert.deepStrictEqual(bare.failures.map((f) => f.property), ["disks[0].format"]);
    for (const disks of [[{ volume: data.name, format: "raw" as const }], [diskOf(data)]]) {
      const vm = await domain({ name: `${tag}-vm${domains.length}`, disks });
      const xml = virsh(["dumpxml", "--inactive", vm.name]);
      assert.match(xml, /<driver name='qemu' type='raw'\/>/);
      assert.doesNotMatch(xml, /shadow/);
    }
  });

  it("refuses to copy it (libvirt would read it as the header says), naming cloneOf, and leaves nothing", async () => {
    const before = volumeNames(labEnv());
    const inputs = await checked(volumeProvider, { host: labHost(labEnv()), name: `${tag}-copy`, cloneOf: data.name, sourceFormat: "raw" } as VolumeInputs);
    await assert.rejects(volumeProvider.create(inputs), (e: Error & { property?: string }) => {
      assert.match(e.message, /cloneOf ".*-data" is raw, but its content carries a qcow2 header naming the file \/etc\/shadow/);
      assert.strictEqual(e.property, "cloneOf");
      return true;
    });
    assert.deepStrictEqual(volumeNames(labEnv()), before);
  });

  it("makes an overlay of it with the base read as raw, recorded in the outputs, and a VM of the overlay gets that chain", async () => {
    const lab = labEnv();
    const overlay = await volume({ name: `${tag}-overlay`, baseImage: data.name, sourceFormat: "raw" });
    assert.deepStrictEqual(overlay.backing, { path: data.path, format: "raw" });
    const info = JSON.parse(execFileSync("qemu-img", ["info", "-U", "--output", "json", overlay.path], { encoding: "utf8" }));
    assert.strictEqual(info["backing-filename-format"], "raw", "the overlay's header says its base is raw");
    assert.strictEqual(info["backing-filename"], data.path);
    const vm = await domain({ name: `${tag}-vm-overlay`, disks: [diskOf(overlay)] });
    const xml = virsh(["dumpxml", "--inactive", vm.name]);
    assert.match(xml, new RegExp(`<backingStore type='file'>\\s*<format type='raw'/>\\s*<source file='${data.path}'/>\\s*<backingStore/>`));
    assert.doesNotMatch(xml, /shadow/);
    // the format stays as recorded on refresh
    assert.strictEqual((await volumeProvider.read(data.key, data)).props.format, "raw");
    assert.ok(volumeNames(lab).includes(overlay.name));
  });
});
