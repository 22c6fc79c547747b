// A broken link heals under the seam: each call takes the live connection, a read or a
// call that never left is repeated once on a fresh one, and a write that may have reached
// the host is not repeated but reported with its outcome unknown. Fake daemons stand in
// for a link breaking at a chosen moment, which the real libvirtd cannot do on demand.
import * as assert from "assert";
import { classify } from "../../provider/errors";
import { calls } from "../../provider/libvirt/calls";
import { rpcLibvirt } from "../../provider/libvirt/rpc-libvirt";
import { healingLibvirt, Linked, OutcomeUnknown } from "../../provider/pool/healing";
import { RpcClient } from "../../provider/rpc/client";
import { RpcTransportError } from "../../provider/rpc/errors";
import { FakeDaemon } from "../support/fake-daemon";

interface Link extends Linked {
  daemon: FakeDaemon;
  client: RpcClient;
}

/** Links that dial a fresh fake daemon whenever the last one was reported broken. */
function fakeLinks() {
  const dialled: Link[] = [];
  let current: Link | undefined;
  const broken: Link[] = [];
  const links = {
    async live(): Promise<Link> {
      if (!current) {
        const { daemon, client: end } = FakeDaemon.pair();
        const client = new RpcClient(end);
        current = { daemon, client, libvirt: rpcLibvirt(client) };
        dialled.push(current);
      }
      return current;
    },
    broken(l: Link): void {
      broken.push(l);
      if (current === l) current = undefined;
    },
  };
  /** The i-th connection, once the view dialled it. */
  async function dial(i: number): Promise<Link> {
    while (!dialled[i]) await new Promise((r) => setImmediate(r));
    return dialled[i];
  }
  return { links, dialled, dial, broken, lv: healingLibvirt(links) };
}

const poolRef = (name: string) => ({ name, uuid: Buffer.alloc(16, 7) });
const cut = (l: Link) => l.client.destroy(new RpcTransportError("link reset by the test"));

describe("healing links", () => {
  it("repeat a read cut off after it was sent, once, on a fresh connection", async () => {
    const f = fakeLinks();
    const reading = f.lv.lookupPool("default");
    const first = await f.dial(0);
    await first.daemon.until(first.daemon.calls(calls.lookupPool.proc.proc));
    cut(first);
    const second = await f.dial(1);
    const [call] = await second.daemon.until(second.daemon.calls(calls.lookupPool.proc.proc));
    second.daemon.reply(call, calls.lookupPool.proc.ret, { pool: poolRef("default") });
    assert.strictEqual((await reading).name, "default");
    assert.deepStrictEqual(f.broken, [f.dialled[0]], "the broken link was dropped");
  });

  it("send a write on a fresh connection when the link had closed before it (nothing reached the host)", async () => {
    const f = fakeLinks();
    cut(await f.links.live());
    const defining = f.lv.defineDomain("<domain/>");
    const second = await f.dial(1);
    const [call] = await second.daemon.until(second.daemon.calls(calls.defineDomain.proc.proc));
    second.daemon.reply(call, calls.defineDomain.proc.ret, { dom: { name: "vm", uuid: Buffer.alloc(16, 1), id: -1 } });
    assert.strictEqual((await defining).name, "vm");
    assert.strictEqual(f.dialled[0].daemon.received.length, 0, "nothing was sent on the closed link");
  });

  it("never repeat a write cut off after it was sent: its outcome is unknown, and the error names it", async () => {
    const f = fakeLinks();
    const vol = { pool: "default", name: "web-disk", key: "/pool/web-disk" };
    const deleting = f.lv.deleteVolume(vol);
    const first = await f.dial(0);
    await first.daemon.until(first.daemon.calls(calls.deleteVolume.proc.proc));
    cut(first);
    const err = await deleting.then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err instanceof OutcomeUnknown, String(err));
    assert.match(err.message, /virStorageVolDelete \(vol default\/web-disk\) was sent, so whether it took effect is unknown.*; look on the host/);
    assert.ok(err.message.startsWith(err.happened) && !err.happened.includes("look on the host"), "what happened, apart from the advice");
    assert.strictEqual(classify(err).errorClass, "transient");
    assert.strictEqual(f.dialled.length, 1, "no second attempt");
  });

  it("repeat a read only once: a second break is the caller's error", async () => {
    const f = fakeLinks();
    const reading = f.lv.hostname();
    for (const i of [0, 1]) {
      const link = await f.dial(i);
      await link.daemon.until(link.daemon.calls(calls.hostname.proc.proc));
      cut(link);
    }
    await assert.rejects(reading, /link reset by the test/);
    assert.strictEqual(f.dialled.length, 2);
  });
});
