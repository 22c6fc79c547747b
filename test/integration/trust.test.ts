// What the provider trusts, against the lab: a guest writes whatever it likes into its
// disks, and libvirt re-probes a file's header on every look. A raw volume whose guest
// wrote a qcow2 header naming /etc/shadow as its backing file is attached by name, copied
// and used as a base: nothing of /etc/shadow may reach a VM or a volume.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { execFileSync } from "child_process";
import { domainProvider, DomainInputs, DomainOutputs } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { setLogSink } from "../../provider/log";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { parseVolumeXml } from "../../provider/xml/volume";
import { checked } from "../support/checked";
import { FileServer } from "../support/http-server";
import { diskOf } from "../support/disks";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { mine, virsh, volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

describe("trust: formats are recorded, never probed", function () {
  this.timeout(180_000);
  const tag = `tr${process.pid}`;
  const tmp = tempDir("trust-");
  const volumes: VolumeOutputs[] = [];
  const domains: DomainOutputs[] = [];
  let data: VolumeOutputs;

  const volume = async (news: Partial<VolumeInputs>): Promise<VolumeOutputs> => {
    const { outs } = await volumeProvider.create(await checked(volumeProvider, { host: labHost(labEnv()), ...news } as VolumeInputs));
    volumes.unshift(outs);
    return outs;
  };
  const domain = async (news: Partial<DomainInputs>): Promise<DomainOutputs> => {
    const { outs } = await domainProvider.create(
      await checked(domainProvider, { host: labHost(labEnv()), type: "qemu", memory: "128MiB", running: false, ...news } as DomainInputs),
    );
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
    const bare = await domainProvider.check(undefined, {
      host: labHost(labEnv()),
      name: `${tag}-bare`,
      type: "qemu",
      disks: [{ volume: data.name }],
    });
    assert.deepStrictEqual(
      bare.failures.map((f) => f.property),
      ["disks[0].format"],
    );
    for (const disks of [[{ volume: data.name, format: "raw" as const }], [diskOf(data)]]) {
      const vm = await domain({ name: `${tag}-vm${domains.length}`, disks });
      const xml = virsh(["dumpxml", "--inactive", vm.name]);
      assert.match(xml, /<driver name='qemu' type='raw'\/>/);
      assert.doesNotMatch(xml, /shadow/);
    }
  });

  it("refuses to copy it (libvirt would read it as the header says), naming cloneOf, and leaves nothing", async () => {
    const before = mine(volumeNames(labEnv()));
    const inputs = await checked(volumeProvider, { host: labHost(labEnv()), name: `${tag}-copy`, cloneOf: data.name, sourceFormat: "raw" } as VolumeInputs);
    await assert.rejects(volumeProvider.create(inputs), (e: Error & { property?: string }) => {
      assert.match(e.message, /cloneOf ".*-data" is raw, but its content carries a qcow2 header naming the file \/etc\/shadow/);
      assert.strictEqual(e.property, "cloneOf");
      return true;
    });
    assert.deepStrictEqual(mine(volumeNames(labEnv())), before);
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

  describe("a raw volume grows as a raw file, whatever header its guest wrote", () => {
    const MiB = 1024 * 1024;
    const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");
    // what a guest can write from inside: a qcow2 header claiming 64 MiB that names a host file
    const headers: [string, (victim: string, file: string) => string[]][] = [
      ["external data file", (victim, file) => ["-o", `data_file=${victim},data_file_raw=on`, file, "64M"]],
      ["backing file", (victim, file) => ["-u", "-b", victim, "-F", "raw", file, "64M"]],
    ];
    for (const [what, options] of headers) {
      it(`keeps a host file its ${what}: byte-identical and of its size, the volume a raw file of the new size with the guest's bytes`, async () => {
        const lab = labEnv();
        const n = headers.findIndex(([w]) => w === what);
        const victim = `/var/lib/libvirt/victim-${tag}-${n}`;
        const hostile = path.join(tmp, `grow-${n}.qcow2`);
        try {
          // qemu-img makes the data file it names: the victim's content is written after
          execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", ...options(victim, hostile)]);
          const victimBytes = crypto.randomBytes(MiB);
          fs.writeFileSync(victim, victimBytes);
          const vol = await volume({ name: `${tag}-grow${n}`, format: "raw", capacity: "16MiB" });
          virsh(["vol-upload", "--pool", lab.pool, vol.name, hostile]);
          virsh(["pool-refresh", lab.pool]);
          const probed = parseVolumeXml(virsh(["vol-dumpxml", "--pool", lab.pool, vol.name]));
          assert.strictEqual(probed.format, "qcow2", "libvirt reads the raw volume as a qcow2 (the premise)");
          assert.strictEqual(probed.capacityBytes, 64 * MiB, "libvirt takes the header's claim as its capacity (the premise)");
          const guestBytes = fs.readFileSync(vol.path);
          // the refresh records the file's size, not the header's claim
          const read = await volumeProvider.read(vol.key, vol);
          assert.strictEqual(read.id, vol.key, "the volume is still the stack's");
          assert.strictEqual(read.props.capacityBytes, 16 * MiB);
          const news = await checked(volumeProvider, { ...vol, capacity: "32MiB" }, read.props);
          const grown = await volumeProvider.update(vol.key, read.props, news);
          volumes[volumes.indexOf(vol)] = grown.outs;
          assert.strictEqual(grown.outs.capacityBytes, 32 * MiB);
          assert.strictEqual(fs.statSync(victim).size, MiB, "the host file kept its size");
          assert.strictEqual(sha(fs.readFileSync(victim)), sha(victimBytes), "the host file kept its bytes");
          const after = fs.readFileSync(vol.path);
          assert.strictEqual(after.length, 32 * MiB, "the volume is a raw file of the new size");
          assert.strictEqual(sha(after.subarray(0, 16 * MiB)), sha(guestBytes), "the guest's bytes are kept");
          assert.ok(
            after.subarray(16 * MiB).every((b) => b === 0),
            "the growth reads as zeros",
          );
          // and the next refresh still knows it as the stack's, at its new size
          virsh(["pool-refresh", lab.pool]);
          const again = await volumeProvider.read(grown.outs.key, grown.outs);
          assert.strictEqual(again.id, grown.outs.key);
          assert.strictEqual(again.props.capacityBytes, 32 * MiB);
        } finally {
          fs.rmSync(victim, { force: true });
        }
      });
    }
  });

  describe("the bytes uploaded are the bytes checked", () => {
    const MiB = 1024 * 1024;
    const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");
    const stamp = new Date("2026-01-01T00:00:00Z");
    /** Writes `bytes` over `file` keeping its size and restoring its mtime, as a careless tool or an attacker would. */
    const swap = (file: string, bytes: Buffer) => {
      fs.writeFileSync(file, bytes);
      fs.utimesSync(file, stamp, stamp);
    };
    /** 4 MiB that start with a qcow2 header naming /etc/shadow as its backing file. */
    const hostileHead = () => {
      const hostile = path.join(tmp, "hostile-4m.qcow2");
      execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", "-u", "-b", "/etc/shadow", "-F", "raw", hostile, "16M"]);
      const bytes = Buffer.alloc(4 * MiB);
      fs.readFileSync(hostile).copy(bytes);
      return bytes;
    };
    const image = (name: string, source: ImageInputs["source"]) => checked(imageProvider, { host: labHost(labEnv()), name, source } as ImageInputs);

    it("refuses an image whose file changed after check (same size, mtime restored) against its pin, and leaves nothing", async () => {
      const file = path.join(tmp, "pinned.raw");
      const original = crypto.randomBytes(4 * MiB);
      swap(file, original);
      const inputs = await image(`${tag}-pinned`, { path: file, sha256: sha(original) });
      swap(file, crypto.randomBytes(4 * MiB));
      const before = mine(volumeNames(labEnv()));
      await assert.rejects(imageProvider.create(inputs), (e: Error & { property?: string }) => {
        assert.match(e.message, new RegExp(`sha256 is [0-9a-f]{64}, not the expected ${sha(original)}`));
        assert.strictEqual(e.property, "source.sha256");
        return true;
      });
      assert.deepStrictEqual(mine(volumeNames(labEnv())), before);
    });

    it("sends the header it checked when a qcow2 naming /etc/shadow is swapped in while the upload starts", async () => {
      const file = path.join(tmp, "racing.img");
      swap(file, crypto.randomBytes(4 * MiB));
      const inputs = await image(`${tag}-racing`, { path: file });
      const bytes = hostileHead();
      // the moment between the volume's making and the upload's reads
      process.env.PULUMI_KVM_LOG = "1";
      setLogSink((line) => {
        if (line.includes("rpc=virStorageVolCreateXML") && line.includes(`${tag}-racing`)) swap(file, bytes);
      });
      let outs: ImageOutputs | undefined;
      try {
        outs = (await imageProvider.create(inputs)).outs;
      } finally {
        delete process.env.PULUMI_KVM_LOG;
        setLogSink(undefined);
      }
      try {
        assert.strictEqual(outs.format, "raw");
        const probed = parseVolumeXml(virsh(["vol-dumpxml", "--pool", labEnv().pool, outs.name]));
        assert.strictEqual(probed.backingPath, undefined, "a backing file name reached the host");
        assert.strictEqual(outs.sha256, crypto.createHash("sha256").update(fs.readFileSync(outs.path)).digest("hex"), "the record is the bytes on the host");
      } finally {
        await imageProvider.delete(outs.key, outs);
      }
    });

    it("refuses a header swapped in after check (a qcow2 naming /etc/shadow), read from the bytes it sends", async () => {
      const file = path.join(tmp, "swapped.img");
      swap(file, crypto.randomBytes(4 * MiB));
      const inputs = await image(`${tag}-swapped`, { path: file });
      swap(file, hostileHead());
      const before = mine(volumeNames(labEnv()));
      await assert.rejects(imageProvider.create(inputs), /names a backing file \("\/etc\/shadow"\)/);
      assert.deepStrictEqual(mine(volumeNames(labEnv())), before);
    });

    it("records the sha256 of the bytes that reached the host, whatever the file held at check", async () => {
      const file = path.join(tmp, "changed.raw");
      swap(file, crypto.randomBytes(4 * MiB));
      const inputs = await image(`${tag}-changed`, { path: file });
      const now = crypto.randomBytes(4 * MiB);
      swap(file, now);
      const { outs } = await imageProvider.create(inputs);
      try {
        const onHost = crypto.createHash("sha256").update(fs.readFileSync(outs.path)).digest("hex");
        assert.strictEqual(outs.sha256, onHost);
        assert.strictEqual(outs.sha256, sha(now));
      } finally {
        await imageProvider.delete(outs.key, outs);
      }
    });
  });

  describe("a URL's announced size", () => {
    const MiB = 1024 * 1024;
    let server: FileServer;
    before(async () => {
      const file = path.join(tmp, "sparse.raw");
      fs.writeFileSync(file, crypto.randomBytes(MiB));
      fs.truncateSync(file, 64 * MiB);
      server = await FileServer.start(file);
    });
    after(() => server.close());

    it("is checked against the pool's free space in preview: a mirror announcing 4 TiB fails there, naming pool", async () => {
      server.claimedLength = 4 * 1024 ** 4;
      try {
        const r = await imageProvider.check(undefined, {
          host: labHost(labEnv()),
          name: `${tag}-huge`,
          source: { url: server.url("huge.raw") },
        } as ImageInputs);
        assert.deepStrictEqual(
          r.failures.map((f) => f.property),
          ["pool"],
        );
        assert.match(r.failures[0].reason, /bytes free, the image at http:\/\/127\.0\.0\.1:\d+\/huge\.raw announces 4398046511104/);
        // past preview, the volume is sparse: the lie costs nothing and the short body fails the create, leaving nothing
        const inputs = { ...r.inputs, source: { url: server.url("huge.raw") } };
        await assert.rejects(imageProvider.create(inputs), /truncated|different length/);
        assert.ok(!volumeNames(labEnv()).includes(`${tag}-huge`));
      } finally {
        server.claimedLength = undefined;
      }
    });

    it("allocates only what arrives: a 64 MiB raw image holding 1 MiB of data takes about 1 MiB of the pool", async () => {
      const inputs = await checked(imageProvider, { host: labHost(labEnv()), name: `${tag}-sparse`, source: { url: server.url("sparse.raw") } } as ImageInputs);
      const { outs } = await imageProvider.create(inputs);
      try {
        assert.strictEqual(outs.capacityBytes, 64 * MiB);
        const allocated = Number(/<allocation unit='bytes'>(\d+)</.exec(virsh(["vol-dumpxml", "--pool", labEnv().pool, outs.name]))![1]);
        assert.ok(allocated < 4 * MiB, `${allocated} bytes allocated for 1 MiB of data`);
      } finally {
        await imageProvider.delete(outs.key, outs);
      }
    });
  });
});
