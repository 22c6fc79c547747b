// The RPC client against the lab's real libvirtd, locally and through sshd.
import * as assert from "assert";
import * as crypto from "crypto";
import { setMaxListeners } from "events";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Client } from "ssh2";
import { fileChunks } from "../../provider/image/chunks";
import { Libvirt } from "../../provider/libvirt/api";
import { rpcLibvirt } from "../../provider/libvirt/rpc-libvirt";
import { RpcClient } from "../../provider/rpc/client";
import { closeClient, openClient } from "../../provider/rpc/handshake";
import { LibvirtError, RpcAbortError } from "../../provider/rpc/errors";
import { PoolRef, VolumeRef } from "../../provider/rpc/types";
import { labEnv } from "../support/lab";
import { localSocket, sshSocket } from "../support/links";
import { volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

const MiB = 1024 * 1024;

async function sha256Of(chunks: AsyncIterable<Buffer>): Promise<string> {
  const h = crypto.createHash("sha256");
  for await (const c of chunks) h.update(c);
  return h.digest("hex");
}

describe("RPC client", function () {
  this.timeout(180_000);
  let ssh: Client;
  let client: RpcClient;
  let lv: Libvirt;
  let pool: PoolRef;
  const made: VolumeRef[] = [];
  const tmp = tempDir("rpc-");

  before(async () => {
    const lab = labEnv();
    const link = await sshSocket(lab);
    ssh = link.ssh;
    client = await openClient(link.stream, { uri: "qemu:///system" });
    lv = rpcLibvirt(client);
    pool = await lv.lookupPool(lab.pool);
  });

  after(async () => {
    for (const v of made) await lv.deleteVolume(v).catch(() => undefined);
    if (client) await closeClient(client);
    ssh?.end();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function rawVolume(name: string, bytes: number): Promise<VolumeRef> {
    const { create } = await import("xmlbuilder2");
    const xml = create().ele("volume").ele("name").txt(name).up().ele("capacity").txt(String(bytes)).up().ele("target").ele("format", { type: "raw" }).end();
    const v = await lv.createVolume(pool, xml);
    made.push(v);
    return v;
  }

  it("completes the handshake on the local socket", async () => {
    const lab = labEnv();
    const local = await openClient(await localSocket(lab), { uri: "qemu:///system" });
    const ver = await rpcLibvirt(local).libVersion();
    assert.ok(ver >= 1_000_000n, `version ${ver}`);
    await closeClient(local);
    assert.ok(local.closed);
  });

  it("completes the handshake through sshd and answers like the daemon's host", async () => {
    assert.ok((await lv.libVersion()) >= 1_000_000n);
    assert.strictEqual(await lv.hostname(), os.hostname());
  });

  it("reports missing objects as not-found errors with libvirt's code names", async () => {
    const expect = async (p: Promise<unknown>, codeName: string, api: string) => {
      await assert.rejects(p, (e: unknown) => e instanceof LibvirtError && e.codeName === codeName && e.api === api);
    };
    await expect(lv.lookupVolume(pool, "no-such-volume"), "VIR_ERR_NO_STORAGE_VOL", "virStorageVolLookupByName");
    await expect(lv.lookupPool("no-such-pool"), "VIR_ERR_NO_STORAGE_POOL", "virStoragePoolLookupByName");
    await expect(lv.lookupDomain("no-such-domain"), "VIR_ERR_NO_DOMAIN", "virDomainLookupByName");
    await expect(lv.lookupNetwork("no-such-network"), "VIR_ERR_NO_NETWORK", "virNetworkLookupByName");
  });

  it("answers 200 concurrent calls on one connection, each with its own result", async () => {
    const calls = Array.from({ length: 200 }, (_, i) => {
      switch (i % 3) {
        case 0:
          return lv.lookupVolume(pool, `missing-${i}`).then(
            () => "found?",
            (e: Error) => e.message,
          );
        case 1:
          return lv.lookupPool(pool.name).then((p) => p.name);
        default:
          return lv.hostname();
      }
    });
    const results = await Promise.all(calls);
    results.forEach((r, i) => {
      if (i % 3 === 0) assert.match(r, new RegExp(`'missing-${i}'`));
      else if (i % 3 === 1) assert.strictEqual(r, pool.name);
      else assert.strictEqual(r, os.hostname());
    });
  });

  it("abandons an aborted call without disturbing the others or the link; one still queued is never sent", async () => {
    const ac = new AbortController();
    setMaxListeners(50, ac.signal);
    const dropped = client.stats.repliesDropped;
    const doomed = Array.from({ length: 20 }, (_, i) => lv.lookupVolume(pool, `gone-${i}`, ac.signal));
    const kept = Array.from({ length: 20 }, () => lv.lookupPool(pool.name));
    ac.abort(new Error("test abort"));
    for (const d of doomed) await assert.rejects(d, RpcAbortError);
    assert.deepStrictEqual(
      (await Promise.all(kept)).map((p) => p.name),
      Array(20).fill(pool.name),
    );
    assert.ok(!client.closed);
    // libvirtd's limit: 5 were sent (their late replies are dropped), 15 waited here and never left
    assert.strictEqual(client.stats.repliesDropped - dropped, client.maxRequests, "late replies are dropped");
    assert.strictEqual(await lv.hostname(), os.hostname());
  });

  it("uploads 64 MiB and downloads it byte-identical", async () => {
    const file = path.join(tmp, "random.bin");
    fs.writeFileSync(file, crypto.randomBytes(64 * MiB));
    const want = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    const vol = await rawVolume(`rpc-upload-${process.pid}.raw`, 64 * MiB);
    const progress = await lv.uploadVolume(vol, fileChunks(file, { sparse: false }));
    assert.strictEqual(progress.sent, 64 * MiB);
    assert.strictEqual(await sha256Of(lv.downloadVolume(vol)), want);
  });

  it("uploads sparse: holes instead of zeros, far fewer bytes sent, identical read-back", async () => {
    const file = path.join(tmp, "sparse.bin");
    const size = 256 * MiB;
    const fd = fs.openSync(file, "w");
    fs.ftruncateSync(fd, size);
    for (let at = 0; at < size; at += 32 * MiB) fs.writeSync(fd, crypto.randomBytes(MiB), 0, MiB, at); // 8 MiB of data
    fs.closeSync(fd);
    const h = crypto.createHash("sha256");
    for await (const c of fs.createReadStream(file)) h.update(c as Buffer);
    const vol = await rawVolume(`rpc-sparse-${process.pid}.raw`, size);
    const progress = await lv.uploadVolume(vol, fileChunks(file, { sparse: true }), { sparse: true });
    assert.strictEqual(progress.covered, size);
    assert.ok(progress.sent <= 8 * MiB, `sent ${progress.sent} bytes for a ${size}-byte file with 8 MiB of data`);
    assert.strictEqual(await sha256Of(lv.downloadVolume(vol)), h.digest("hex"));
  });

  it("surfaces a daemon error in the middle of an upload as an error, not a hang", async () => {
    const vol = await rawVolume(`rpc-small-${process.pid}.raw`, MiB);
    async function* tooMuch() {
      for (let i = 0; i < 256; i++) yield { data: Buffer.alloc(MiB, 1) };
    }
    const started = Date.now();
    await assert.rejects(
      lv.uploadVolume(vol, tooMuch(), { length: BigInt(MiB) }),
      (e: unknown) => e instanceof LibvirtError && e.api === "virStorageVolUpload" && /No space left/.test(e.message),
    );
    assert.ok(Date.now() - started < 30_000);
    assert.strictEqual(await lv.hostname(), os.hostname(), "the link survives");
  });

  it("answers the daemon's keepalive PINGs through a 40 s idle period", async function () {
    this.timeout(90_000);
    const lab = labEnv();
    const link = await sshSocket(lab);
    // our own pings only after 1000 s: every PING during the idle time comes from libvirtd
    const idle = await openClient(link.stream, { uri: "qemu:///system", keepaliveInterval: 1000 });
    try {
      await new Promise((r) => setTimeout(r, 40_000));
      assert.ok(idle.stats.pingsAnswered >= 3, `answered ${idle.stats.pingsAnswered} pings`);
      assert.strictEqual(idle.stats.pingsSent, 0);
      assert.ok(!idle.closed);
      assert.strictEqual(await rpcLibvirt(idle).hostname(), os.hostname());
    } finally {
      await closeClient(idle);
      link.ssh.end();
    }
  });

  it("leaves no volume behind", async () => {
    for (const v of made.splice(0)) await lv.deleteVolume(v);
    assert.ok(!volumeNames(labEnv()).some((n) => n.startsWith("rpc-")));
  });
});
