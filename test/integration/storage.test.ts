// Image and Volume resources against the lab, through the provider methods Pulumi calls.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { create as xml } from "xmlbuilder2";
import { hostPool } from "../../provider/pool/host-pool";
import { describeVolume } from "../../provider/resources/storage";
import { imageProvider, ImageInputs, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { volumeProvider, VolumeInputs, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";
import { providerShim } from "../../sdk/shim";
import { checked } from "../support/checked";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { FileServer } from "../support/http-server";
import { knownHostsFor } from "../support/sshd";
import { TcpProxy } from "../support/tcp-proxy";
import { mine, virsh, volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

const MiB = 1024 * 1024;

function sha256(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

describe("Image and Volume", function () {
  this.timeout(180_000);
  const tag = `st${process.pid}`;
  const tmp = tempDir("storage-");
  const made: { kind: "image" | "volume"; outs: any }[] = [];
  let server: FileServer;

  before(async () => {
    server = await FileServer.start(labEnv().image);
  });
  after(async () => {
    for (const m of made.reverse()) await (m.kind === "image" ? imageProvider : volumeProvider).delete(m.outs.key, m.outs).catch(() => undefined);
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A file of `mib` MiB of random bytes in the test's folder. */
  const randomFile = (name: string, mib: number): string => {
    const file = path.join(tmp, name);
    const fd = fs.openSync(file, "w");
    for (let i = 0; i < mib / 16; i++) fs.writeSync(fd, crypto.randomBytes(16 * MiB));
    fs.closeSync(fd);
    return file;
  };

  const image = async (name: string, source: ImageInputs["source"]): Promise<ImageOutputs> => {
    const lab = labEnv();
    const inputs = await checked(imageProvider, { host: labHost(lab), name, source } as ImageInputs);
    const { outs } = await imageProvider.create(inputs);
    made.push({ kind: "image", outs });
    return outs;
  };

  it("uploads the lab guest image from a file: format and size from the header, sha256 output, bytes intact", async () => {
    const lab = labEnv();
    const img = await image(`${tag}-file.qcow2`, { path: lab.image });
    assert.strictEqual(img.format, "qcow2");
    assert.strictEqual(img.capacityBytes, 64 * MiB, "the qcow2 header's virtual size");
    assert.strictEqual(img.sha256, sha256(lab.image));
    assert.strictEqual(img.pool, "default");
    assert.ok(img.path.startsWith(lab.poolDir));
    const h = crypto.createHash("sha256");
    await hostPool.run(labHost(lab), async (lv) => {
      const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), img.name);
      for await (const c of lv.downloadVolume(vol, { length: BigInt(fs.statSync(lab.image).size) })) h.update(c);
    });
    assert.strictEqual(h.digest("hex"), img.sha256);
    assert.match(virsh(["vol-dumpxml", "--pool", lab.pool, img.name]), /<format type='qcow2'\/>/);
  });

  it("uploads from a URL, verifying the checksum, with nothing staged on disk (an unusable TMPDIR)", async () => {
    const lab = labEnv();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = path.join(tmp, "no-such-dir", "tmp");
    try {
      const img = await image(`${tag}-url.qcow2`, { url: server.url(), sha256: sha256(lab.image) });
      assert.strictEqual(img.sha256, sha256(lab.image));
      assert.strictEqual(img.format, "qcow2");
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("refuses a URL's bytes with a wrong checksum, and deletes the volume they streamed into", async () => {
    const lab = labEnv();
    const before = mine(volumeNames(lab));
    const inputs = await checked(imageProvider, {
      host: labHost(lab),
      name: `${tag}-bad.qcow2`,
      source: { url: server.url(), sha256: "0".repeat(64) },
    } as ImageInputs);
    await assert.rejects(imageProvider.create(inputs), /source\.sha256.*not the expected 0{64}.*nothing was left on the host/s);
    assert.deepStrictEqual(mine(volumeNames(lab)), before);
  });

  it("retries server errors, resumes broken bodies where they broke (Range), and gives up on 404", async () => {
    const lab = labEnv();
    server.faults = ["500", "truncate", "truncate"];
    const n = server.requests.length;
    const img = await image(`${tag}-retry.qcow2`, { url: server.url() });
    assert.strictEqual(server.requests.length - n, 4, "a server error, two breaks, then the rest");
    const size = fs.statSync(lab.image).size;
    const half = Math.floor(size / 2);
    assert.deepStrictEqual(
      server.ranged.slice(-3),
      ["", `bytes=${half}-`, `bytes=${half + Math.floor((size - half) / 2)}-`],
      "each resume asks for the bytes after the break",
    );
    assert.strictEqual(img.sha256, sha256(lab.image), "the resumed bytes make the same image");
    assert.strictEqual(virsh(["vol-info", "--pool", lab.pool, img.name, "--bytes"]).match(/Capacity:\s+(\d+)/)?.[1], String(img.capacityBytes));
    const before = mine(volumeNames(lab));
    const inputs = await checked(imageProvider, { host: labHost(lab), name: `${tag}-404.qcow2`, source: { url: server.url("missing.qcow2") } } as ImageInputs);
    await assert.rejects(imageProvider.create(inputs), /source\.url.*HTTP 404.*Check the URL/s);
    server.faults = ["truncate", "truncate", "truncate", "truncate"];
    const trunc = await checked(imageProvider, { host: labHost(lab), name: `${tag}-trunc.qcow2`, source: { url: server.url() } } as ImageInputs);
    await assert.rejects(imageProvider.create(trunc), /truncated/);
    assert.deepStrictEqual(mine(volumeNames(lab)), before, "the volume the broken download streamed into is gone");
    // a server without ranges cannot resume: the image fails (and is removed), not corrupted
    server.ranges = false;
    server.faults = ["truncate"];
    try {
      const norange = await checked(imageProvider, { host: labHost(lab), name: `${tag}-norange.qcow2`, source: { url: server.url() } } as ImageInputs);
      await assert.rejects(imageProvider.create(norange), /cannot resume there.*starts over on the next run/s);
    } finally {
      server.ranges = true;
    }
    assert.deepStrictEqual(mine(volumeNames(lab)), before);
  });

  it("describes new Images as their headers say at once, and overlays made on them at once take their size (libvirt re-reads each uploaded volume in a thread of its own)", async () => {
    // six Images made at once, as a program with several does: each upload's end makes libvirt
    // re-read the whole pool, while the others' head marks still stand
    const lab = labEnv();
    const images = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => image(`${tag}-reread${i}.qcow2`, { path: lab.image })));
    for (const [i, img] of images.entries()) {
      const seen = await hostPool.run(labHost(lab), async (lv) => describeVolume(lv, await lv.lookupVolume(await lv.lookupPool(lab.pool), img.name)));
      assert.deepStrictEqual([seen.format, seen.capacityBytes], ["qcow2", 64 * MiB], `image ${i}: libvirt's description after its create`);
      const inputs = await checked(volumeProvider, {
        host: labHost(lab),
        name: `${tag}-reread${i}-disk.qcow2`,
        baseImage: img.name,
        sourceFormat: img.format,
      } as VolumeInputs);
      const { outs } = await volumeProvider.create(inputs);
      assert.strictEqual(outs.capacityBytes, 64 * MiB, `image ${i}: the overlay's size is the image's`);
      await volumeProvider.delete(outs.key, outs);
    }
    for (const img of images) await imageProvider.delete(img.key, img);
    made.splice(made.length - images.length, images.length);
  });

  it("creates an overlay over an image, grows it in place and reports a shrink as a replacement", async () => {
    const lab = labEnv();
    const img = made.find((m) => m.kind === "image")!.outs as ImageOutputs;
    const inputs = await checked(volumeProvider, {
      host: labHost(lab),
      name: `${tag}-disk.qcow2`,
      baseImage: img.name,
      sourceFormat: img.format,
    } as VolumeInputs);
    const { outs } = await volumeProvider.create(inputs);
    made.push({ kind: "volume", outs });
    assert.strictEqual(outs.capacityBytes, img.capacityBytes, "capacity defaults to the image's");
    const dumped = virsh(["vol-dumpxml", "--pool", lab.pool, outs.name]);
    assert.ok(dumped.includes(`<path>${img.path}</path>`), "backing store is the image");
    const grow = await checked(volumeProvider, { ...inputs, capacity: "128MiB" }, outs);
    assert.deepStrictEqual(await volumeProvider.diff(outs.key, outs, grow), { changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: grown } = await volumeProvider.update(outs.key, outs, grow);
    assert.strictEqual(grown.capacityBytes, 128 * MiB);
    made[made.length - 1].outs = grown;
    assert.match(virsh(["vol-info", "--pool", lab.pool, outs.name, "--bytes"]), new RegExp(`Capacity:\\s+${128 * MiB} bytes`));
    const shrink = await checked(volumeProvider, { ...inputs, capacity: "96MiB" }, grown);
    assert.deepStrictEqual((await volumeProvider.diff(outs.key, grown, shrink)).replaces, ["capacity"]);
    const small = await checked(volumeProvider, { ...inputs, name: `${tag}-small.qcow2`, capacity: "32MiB" });
    await assert.rejects(volumeProvider.create(small), /capacity .* smaller than the image's/);
  });

  it("refuses to delete an image that backs volumes, and a volume attached to a domain, naming them", async () => {
    const img = made.find((m) => m.kind === "image")!.outs as ImageOutputs;
    const disk = made.find((m) => m.kind === "volume")!.outs as VolumeOutputs;
    await assert.rejects(imageProvider.delete(img.key, img), new RegExp(`still backs 1 volume\\(s\\): ${disk.name}`));
    const dom = `${tag}-holder`;
    const file = path.join(tmp, "dom.xml");
    fs.writeFileSync(
      file,
      xml()
        .ele("domain", { type: "qemu" })
        .ele("name")
        .txt(dom)
        .up()
        .ele("memory", { unit: "MiB" })
        .txt("64")
        .up()
        .ele("os")
        .ele("type")
        .txt("hvm")
        .up()
        .up()
        .ele("devices")
        .ele("disk", { type: "file", device: "disk" })
        .ele("source", { file: disk.path })
        .up()
        .ele("target", { dev: "vda", bus: "virtio" })
        .end(),
    );
    virsh(["define", file]);
    try {
      await assert.rejects(volumeProvider.delete(disk.key, disk), new RegExp(`attached to domain ${dom}`));
    } finally {
      virsh(["undefine", dom]);
    }
    await volumeProvider.delete(disk.key, disk);
    await volumeProvider.delete(disk.key, disk); // already gone is success
    made.splice(
      made.findIndex((m) => m.outs === disk),
      1,
    );
    const read = await volumeProvider.read(disk.key, disk);
    assert.strictEqual(read.id, "", "a missing volume reads as gone");
  });

  it("leaves the pool unchanged when the link dies in the middle of an upload", async () => {
    const lab = labEnv();
    const big = randomFile("big.raw", 256);
    const proxy = await TcpProxy.start(lab.port);
    try {
      const host = labHost(lab, { port: proxy.port, knownHostsPath: knownHostsFor(lab, [proxy.port], tmp) });
      const before = mine(volumeNames(lab));
      const inputs = await checked(imageProvider, { host, name: `${tag}-cut.raw`, source: { path: big } } as ImageInputs);
      proxy.cutAfter(64 * MiB); // mid-upload, whatever the speed
      await assert.rejects(imageProvider.create(inputs), /creating image default\/.*-cut\.raw/);
      assert.deepStrictEqual(mine(volumeNames(lab)), before);
    } finally {
      await proxy.close();
    }
  });

  it("verifies a sha512, given or from a published SHA512SUMS file (the line of the image's file name), and refuses other bytes", async () => {
    const lab = labEnv();
    const sha512 = crypto.createHash("sha512").update(fs.readFileSync(lab.image)).digest("hex");
    // Debian's SHA512SUMS as published: one line per file, ours among others
    fs.writeFileSync(path.join(tmp, "SHA512SUMS"), `${"1".repeat(128)}  other.qcow2\n${sha512}  image.qcow2\n`);
    const sums = await FileServer.start(path.join(tmp, "SHA512SUMS"));
    try {
      const fromFile = await image(`${tag}-sha512.qcow2`, { path: lab.image, sha512 });
      assert.strictEqual(fromFile.sha512, sha512);
      const published = await image(`${tag}-sums.qcow2`, { url: server.url("image.qcow2"), checksumUrl: sums.url("SHA512SUMS") });
      assert.strictEqual(published.source.sha512, sha512, "check took the line of image.qcow2");
      assert.strictEqual(published.sha512, sha512);
      const before = mine(volumeNames(lab));
      const wrong = await checked(imageProvider, {
        host: labHost(lab),
        name: `${tag}-wrong512.qcow2`,
        source: { url: server.url("image.qcow2"), sha512: "2".repeat(128) },
      } as ImageInputs);
      await assert.rejects(
        imageProvider.create(wrong),
        (e: Error & { property?: string }) => e.property === "source.sha512" && /sha512 is [0-9a-f]{128}, not the expected 2{128}/.test(e.message),
      );
      assert.deepStrictEqual(mine(volumeNames(lab)), before);
      const unlisted = await imageProvider.check(undefined, {
        host: labHost(lab),
        name: `${tag}-x.qcow2`,
        source: { url: server.url("unlisted.qcow2"), checksumUrl: sums.url("SHA512SUMS") },
      } as ImageInputs);
      assert.deepStrictEqual(
        unlisted.failures.map((f) => f.property),
        ["source.checksumUrl"],
      );
      assert.match(unlisted.failures[0].reason, /no sha256 or sha512 line for "unlisted\.qcow2"/);
    } finally {
      await sums.close();
    }
  });

  it("serializes its provider small and without secrets", async () => {
    const sf = await pulumi.runtime.serializeFunction(() => providerShim, { allowSecrets: false });
    assert.ok(sf.text.length < 4096, `${sf.text.length} bytes`);
    assert.ok(sf.text.includes('require("pulumi-kvm/provider")'));
    assert.doesNotMatch(sf.text, /PRIVATE KEY|passphrase|127\.0\.0\.1|ssh2/);
  });
});
