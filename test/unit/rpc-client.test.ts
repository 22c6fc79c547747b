// The RPC client over an in-memory pipe to a fake daemon: the states the real libvirtd
// cannot be put in on demand. Serial matching out of order, late replies after an
// abort, routing by type, keepalive both ways, upload back-pressure and a daemon error
// in the middle of it, and a slow download reader that must not stall the link.
import * as assert from "assert";

import { Libvirt, LibvirtError, RpcAbortError } from "../../provider/libvirt/api";
import { calls } from "../../provider/libvirt/calls";
import { rpcLibvirt } from "../../provider/libvirt/rpc-libvirt";
import { RpcClient } from "../../provider/rpc/client";
import { decode } from "../../provider/rpc/codec";
import { ErrorCode } from "../../provider/rpc/error-codes";
import { RpcNotSentError, RpcTransportError } from "../../provider/rpc/errors";
import { PING, PONG } from "../../provider/rpc/keepalive";
import { KeepaliveProc, MessageStatus, MessageType, Packet, Program } from "../../provider/rpc/packet";
import { FakeDaemon } from "../support/fake-daemon";

const MiB = 1024 * 1024;
const poolOf = (name: string) => ({ name, uuid: Buffer.alloc(16, 1) });
const vol = { pool: "p", name: "v", key: "/p/v" };
const tick = () => new Promise((r) => setImmediate(r));

function setup(callTimeoutMs = 0): { daemon: FakeDaemon; client: RpcClient; lv: Libvirt } {
  const { daemon, client: end } = FakeDaemon.pair();
  const client = new RpcClient(end, { callTimeoutMs });
  return { daemon, client, lv: rpcLibvirt(client) };
}

const isKeepalive = (proc: number) => (p: Packet) => p.header.prog === Program.KEEPALIVE && p.header.proc === proc;

describe("RPC client (fake daemon)", () => {
  let client: RpcClient | undefined;
  afterEach(() => client?.destroy(new Error("test done")));

  it("matches replies to calls by serial when they come back in reverse order", async () => {
    const s = setup();
    client = s.client;
    const names = ["a", "b", "c", "d", "e"];
    const pending = names.map((n) => s.lv.lookupPool(n));
    const received = await s.daemon.until(s.daemon.calls(calls.lookupPool.proc.proc), names.length);
    assert.deepStrictEqual(
      received.map((p) => p.header.serial),
      [1, 2, 3, 4, 5],
      "serials count up from 1",
    );
    for (const call of [...received].reverse()) {
      const { name } = decode(calls.lookupPool.proc.args, call.payload);
      s.daemon.reply(call, calls.lookupPool.proc.ret, { pool: poolOf(name) });
    }
    assert.deepStrictEqual(
      (await Promise.all(pending)).map((p) => p.name),
      names,
    );
  });

  it("drops the late reply of an abandoned call and keeps the link for the others", async () => {
    const s = setup();
    client = s.client;
    const ac = new AbortController();
    const doomed = s.lv.lookupPool("gone", ac.signal);
    const kept = s.lv.hostname();
    const [gone] = await s.daemon.until(s.daemon.calls(calls.lookupPool.proc.proc));
    ac.abort(new Error("caller gave up"));
    await assert.rejects(doomed, (e: unknown) => e instanceof RpcAbortError && /virStoragePoolLookupByName/.test(e.message));
    s.daemon.reply(gone, calls.lookupPool.proc.ret, { pool: poolOf("gone") });
    const [host] = await s.daemon.until(s.daemon.calls(calls.hostname.proc.proc));
    s.daemon.reply(host, calls.hostname.proc.ret, { hostname: "hv1" });
    assert.strictEqual(await kept, "hv1");
    assert.strictEqual(s.client.stats.repliesDropped, 1);
    assert.strictEqual(s.client.closed, false);
  });

  it("routes by type first: an event with a pending call's serial is an event, not its reply", async () => {
    const s = setup();
    client = s.client;
    const events: Packet[] = [];
    s.client.on("event", (p: Packet) => events.push(p));
    const pending = s.lv.hostname();
    const [call] = await s.daemon.until(s.daemon.calls(calls.hostname.proc.proc));
    s.daemon.send({ proc: 107, type: MessageType.Message, serial: call.header.serial });
    await tick();
    assert.strictEqual(events.length, 1);
    s.daemon.reply(call, calls.hostname.proc.ret, { hostname: "hv1" });
    assert.strictEqual(await pending, "hv1");
  });

  it("passes libvirt's error of a call on with its code name and API", async () => {
    const s = setup();
    client = s.client;
    const pending = s.lv.lookupVolume(poolOf("p"), "x");
    const [call] = await s.daemon.until(s.daemon.calls(calls.lookupVolume.proc.proc));
    s.daemon.fail(call, ErrorCode.VIR_ERR_NO_STORAGE_VOL, "Storage volume not found: no storage vol with matching name 'x'");
    await assert.rejects(
      pending,
      (e: unknown) => e instanceof LibvirtError && e.codeName === "VIR_ERR_NO_STORAGE_VOL" && e.api === "virStorageVolLookupByName",
    );
  });

  it("answers the daemon's PINGs, pings a silent daemon, and declares it dead after its PINGs go unanswered", async () => {
    const s = setup();
    client = s.client;
    s.daemon.socket.write(PING);
    await s.daemon.until(isKeepalive(KeepaliveProc.PONG));
    assert.strictEqual(s.client.stats.pingsAnswered, 1);
    const closed = new Promise<Error>((r) => s.client.once("close", r));
    const pending = s.lv.hostname();
    const pingsAtClose = new Promise<number>((r) => s.client.once("close", () => r(s.daemon.received.filter(isKeepalive(KeepaliveProc.PING)).length)));
    s.client.startKeepalive(0.3, 2);
    const err = await closed;
    assert.ok(err instanceof RpcTransportError && /did not answer .*keepalive: 2 pings/.test(err.message), err.message);
    // libvirt's semantics: a PING every interval, dead one interval after the count-th went
    // unanswered, so before a third was due: counted, not timed
    assert.strictEqual(await pingsAtClose, 2, "declared dead after exactly count PINGs, before another was due");
    await assert.rejects(pending, RpcTransportError);
  });

  it("keeps a daemon that answers its PINGs alive", async () => {
    const s = setup();
    client = s.client;
    s.daemon.socket.on("data", () => {
      for (const p of s.daemon.received.splice(0)) if (isKeepalive(KeepaliveProc.PING)(p)) s.daemon.socket.write(PONG);
    });
    s.client.startKeepalive(0.2, 2);
    await new Promise((r) => setTimeout(r, 1200));
    assert.ok(s.client.stats.pingsSent >= 3);
    assert.strictEqual(s.client.closed, false);
  });

  it("waits for the link to drain during an upload, then sends everything in order", async () => {
    const s = setup();
    client = s.client;
    s.daemon.socket.pause(); // the daemon stops reading: its socket fills up
    const data = Buffer.alloc(4 * MiB, 7);
    let sentAll = false;
    const upload = s.lv
      .uploadVolume(
        vol,
        (async function* () {
          yield { data };
        })(),
      )
      .then((p) => {
        sentAll = true;
        return p;
      });
    s.daemon.socket.resume();
    const [open] = await s.daemon.until(s.daemon.calls(calls.uploadVolume.proc.proc));
    s.daemon.socket.pause();
    s.daemon.reply(open, calls.uploadVolume.proc.ret, undefined);
    await new Promise((r) => setTimeout(r, 100));
    assert.strictEqual(sentAll, false, "the upload waits while the link is full");
    s.daemon.socket.resume();
    const isData = (p: Packet) => p.header.type === MessageType.Stream && p.header.status === MessageStatus.Continue;
    const finish = (p: Packet) => p.header.type === MessageType.Stream && p.header.status === MessageStatus.Ok;
    const [end] = await s.daemon.until(finish);
    s.daemon.send({ proc: end.header.proc, type: MessageType.Stream, serial: end.header.serial });
    const progress = await upload;
    assert.strictEqual(progress.sent, data.length);
    const chunks = s.daemon.received.filter(isData);
    assert.ok(
      chunks.every((c) => c.payload.length <= 262120),
      "chunks of at most 256 KiB",
    );
    assert.ok(Buffer.concat(chunks.map((c) => c.payload)).equals(data));
  });

  it("answers a flood of PINGs on a full link with one PONG once it drains, without growing the write buffer", async () => {
    const s = setup();
    client = s.client;
    const end = (s.client as unknown as { stream: import("stream").Duplex }).stream;
    const upload = s.lv.uploadVolume(
      vol,
      (async function* () {
        yield { data: Buffer.alloc(4 * MiB, 1) };
      })(),
    );
    const [open] = await s.daemon.until(s.daemon.calls(calls.uploadVolume.proc.proc));
    s.daemon.socket.pause(); // the daemon stops reading: the client's link fills up
    s.daemon.reply(open, calls.uploadVolume.proc.ret, undefined);
    for (let i = 0; i < 50 && !end.writableNeedDrain; i++) await tick();
    assert.ok(end.writableNeedDrain, "the link is full");
    const before = end.writableLength;
    for (let i = 0; i < 100; i++) s.daemon.socket.write(PING);
    await new Promise((r) => setTimeout(r, 50));
    assert.strictEqual(end.writableLength, before, "no PONG queued behind a full buffer");
    s.daemon.socket.resume();
    const [finish] = await s.daemon.until((p) => p.header.type === MessageType.Stream && p.header.status === MessageStatus.Ok);
    s.daemon.send({ proc: finish.header.proc, type: MessageType.Stream, serial: finish.header.serial });
    await upload;
    await new Promise((r) => setTimeout(r, 20));
    assert.strictEqual(s.daemon.received.filter(isKeepalive(KeepaliveProc.PONG)).length, 1, "one PONG answers the flood");
  });

  it("ends an upload with the daemon's STREAM error sent in the middle of it, and keeps the link", async () => {
    const s = setup();
    client = s.client;
    async function* endless() {
      for (;;) {
        yield { data: Buffer.alloc(MiB, 1) };
        await tick();
      }
    }
    const upload = s.lv.uploadVolume(vol, endless());
    const [open] = await s.daemon.until(s.daemon.calls(calls.uploadVolume.proc.proc));
    s.daemon.reply(open, calls.uploadVolume.proc.ret, undefined);
    await s.daemon.until((p) => p.header.type === MessageType.Stream, 8);
    s.daemon.fail(open, ErrorCode.VIR_ERR_SYSTEM_ERROR, "cannot write data: No space left on device", MessageType.Stream);
    await assert.rejects(upload, (e: unknown) => e instanceof LibvirtError && /No space left/.test((e as Error).message));
    const host = s.lv.hostname();
    const [call] = await s.daemon.until(s.daemon.calls(calls.hostname.proc.proc));
    s.daemon.reply(call, calls.hostname.proc.ret, { hostname: "hv1" });
    assert.strictEqual(await host, "hv1");
  });

  it("holds at most a small bound of STREAM data a daemon sends unasked during an upload, and the upload goes on", async () => {
    const s = setup();
    client = s.client;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const upload = s.lv.uploadVolume(
      vol,
      (async function* () {
        yield { data: Buffer.alloc(MiB, 1) };
        await held;
      })(),
    );
    const [open] = await s.daemon.until(s.daemon.calls(calls.uploadVolume.proc.proc));
    s.daemon.reply(open, calls.uploadVolume.proc.ret, undefined);
    await s.daemon.until((p) => p.header.type === MessageType.Stream, 4);
    const sent = 64 * (MiB - 64);
    for (let i = 0; i < 64; i++) {
      s.daemon.send(
        { proc: open.header.proc, type: MessageType.Stream, serial: open.header.serial, status: MessageStatus.Continue },
        Buffer.alloc(MiB - 64, 7),
      );
      await tick();
    }
    // every byte sent has reached the client
    while (s.daemon.socket.writableLength > 0) await tick();
    await new Promise((r) => setTimeout(r, 20));
    const kept = sent - s.client.stats.streamBytesDropped;
    assert.ok(kept <= 2 * MiB, `64 MiB sent unasked; the upload holds ${(kept / MiB).toFixed(1)} MiB of it`);
    release();
    const [finish] = await s.daemon.until((p) => p.header.type === MessageType.Stream && p.header.status === MessageStatus.Ok);
    s.daemon.send({ proc: finish.header.proc, type: MessageType.Stream, serial: finish.header.serial });
    assert.strictEqual((await upload).sent, MiB);
  });

  it("lets a download reader fall behind without stalling the link: PINGs and other calls are still answered", async () => {
    const s = setup();
    client = s.client;
    const download = s.lv.downloadVolume(vol);
    const first = download.next();
    const [open] = await s.daemon.until(s.daemon.calls(calls.downloadVolume.proc.proc));
    s.daemon.reply(open, calls.downloadVolume.proc.ret, undefined);
    const chunk = Buffer.alloc(256 * 1024, 3);
    for (let i = 0; i < 48; i++)
      s.daemon.send({ proc: open.header.proc, type: MessageType.Stream, serial: open.header.serial, status: MessageStatus.Continue }, chunk);
    s.daemon.send({ proc: open.header.proc, type: MessageType.Stream, serial: open.header.serial, status: MessageStatus.Continue });
    assert.strictEqual((await first).value?.length, chunk.length);
    // the reader now holds 11.75 MiB unread: more than 8 MiB, where the link used to pause
    await new Promise((r) => setTimeout(r, 50));
    s.daemon.socket.write(PING);
    await s.daemon.until(isKeepalive(KeepaliveProc.PONG));
    const host = s.lv.hostname();
    const [call] = await s.daemon.until(s.daemon.calls(calls.hostname.proc.proc));
    s.daemon.reply(call, calls.hostname.proc.ret, { hostname: "hv1" });
    assert.strictEqual(await host, "hv1");
    let bytes = chunk.length;
    const rest = (async () => {
      for await (const c of { [Symbol.asyncIterator]: () => download }) bytes += c.length;
    })();
    const [finish] = await s.daemon.until((p) => p.header.type === MessageType.Stream && p.header.status === MessageStatus.Ok);
    s.daemon.send({ proc: finish.header.proc, type: MessageType.Stream, serial: finish.header.serial });
    await rest;
    assert.strictEqual(bytes, 48 * chunk.length);
  });

  it("drops a download whose reader leaves more than its bound unread, keeping the link", async () => {
    const s = setup();
    client = s.client;
    const download = s.lv.downloadVolume(vol, { maxBuffered: MiB });
    const first = download.next();
    const [open] = await s.daemon.until(s.daemon.calls(calls.downloadVolume.proc.proc));
    s.daemon.reply(open, calls.downloadVolume.proc.ret, undefined);
    const send = () =>
      s.daemon.send({ proc: open.header.proc, type: MessageType.Stream, serial: open.header.serial, status: MessageStatus.Continue }, Buffer.alloc(256 * 1024));
    send();
    assert.strictEqual((await first).value?.length, 256 * 1024);
    for (let i = 0; i < 7; i++) send(); // the reader reads no more
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(download.next(), /left more than 1048576 bytes unread/);
    const abort = await s.daemon.until((p) => p.header.type === MessageType.Stream && p.header.status === MessageStatus.Error);
    assert.strictEqual(abort.length, 1, "the daemon is told to drop the stream");
    assert.strictEqual(s.client.closed, false);
  });

  it("bounds a call the daemon never answers by the client's call bound, naming the API", async () => {
    const s = setup(150);
    client = s.client;
    await assert.rejects(s.lv.shutdownDomain({ name: "vm", uuid: Buffer.alloc(16), id: 1 }), /virDomainShutdown abandoned: no reply within 0\.15 s/);
    assert.strictEqual(s.client.closed, false);
  });
  it("keeps at most libvirtd's per-client request limit in flight and queues the rest here, in order", async () => {
    const s = setup();
    client = s.client;
    const names = ["a", "b", "c", "d", "e", "f", "g"];
    const pending = names.map((n) => s.lv.lookupPool(n));
    const first = await s.daemon.until(s.daemon.calls(calls.lookupPool.proc.proc), 5);
    for (let i = 0; i < 5; i++) await tick();
    assert.strictEqual(s.daemon.received.length, 5, "the 6th and 7th calls wait until the daemon answers one");
    assert.strictEqual(s.client.stats.queued, 2);
    s.daemon.reply(first[2], calls.lookupPool.proc.ret, { pool: poolOf("c") });
    const six = await s.daemon.until(s.daemon.calls(calls.lookupPool.proc.proc), 6);
    assert.strictEqual(decode(calls.lookupPool.proc.args, six[5].payload).name, "f", "the queue keeps the callers' order");
    for (let i = 0; i < 5; i++) await tick();
    assert.strictEqual(s.daemon.received.length, 6);
    for (const call of six.filter((p) => p !== first[2])) {
      s.daemon.reply(call, calls.lookupPool.proc.ret, { pool: poolOf(decode(calls.lookupPool.proc.args, call.payload).name) });
    }
    const seven = await s.daemon.until(s.daemon.calls(calls.lookupPool.proc.proc), 7);
    s.daemon.reply(seven[6], calls.lookupPool.proc.ret, { pool: poolOf("g") });
    assert.deepStrictEqual(
      (await Promise.all(pending)).map((p) => p.name),
      names,
    );
    assert.strictEqual(s.client.stats.peakRequests, 5);
  });

  it("counts an abandoned call against the limit until its late reply comes; a queued call is never sent when the link closes", async () => {
    const { daemon, client: end } = FakeDaemon.pair();
    client = new RpcClient(end, { maxRequests: 1 });
    const lv = rpcLibvirt(client);
    const ac = new AbortController();
    const doomed = lv.lookupPool("slow", ac.signal);
    const [slow] = await daemon.until(daemon.calls(calls.lookupPool.proc.proc));
    ac.abort(new Error("caller gave up"));
    await assert.rejects(doomed, RpcAbortError);
    const next = lv.hostname();
    for (let i = 0; i < 5; i++) await tick();
    assert.strictEqual(daemon.received.length, 1, "the daemon still works on the abandoned call");
    daemon.reply(slow, calls.lookupPool.proc.ret, { pool: poolOf("slow") });
    const [host] = await daemon.until(daemon.calls(calls.hostname.proc.proc));
    const queued = lv.lookupPool("never");
    client.destroy(new RpcTransportError("link closed"));
    await assert.rejects(queued, (e: unknown) => e instanceof RpcNotSentError, "a call that waited in the queue was never sent");
    await assert.rejects(next, RpcTransportError);
    assert.ok(host);
  });
});
