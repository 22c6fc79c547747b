import * as assert from "assert";
import { Semaphore } from "../../provider/pool/semaphore";

describe("Semaphore", () => {
  it("grants free slots at once, even to an aborted signal; a second release frees nothing more", async () => {
    const s = new Semaphore(1);
    const release = await s.acquire(AbortSignal.abort());
    assert.strictEqual(s.waiting, 0);
    release();
    release();
    const again = await s.acquire();
    let third = false;
    const waiting = s.acquire().then((r) => {
      third = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    assert.strictEqual(s.waiting, 1, "one slot: the double release did not make two");
    assert.strictEqual(third, false);
    again();
    (await waiting)();
    assert.strictEqual(third, true);
  });

  it("queues waiters in order and ends a wait when its signal aborts", async () => {
    const s = new Semaphore(2);
    const a = await s.acquire();
    const b = await s.acquire();
    const order: string[] = [];
    const ac = new AbortController();
    const c = s.acquire(ac.signal).then((r) => {
      order.push("c");
      return r;
    });
    const d = s.acquire().then((r) => {
      order.push("d");
      return r;
    });
    const e = s.acquire().then((r) => {
      order.push("e");
      return r;
    });
    assert.strictEqual(s.waiting, 3);
    ac.abort(new Error("gave up"));
    await assert.rejects(c, /gave up/);
    assert.strictEqual(s.waiting, 2);
    a();
    (await d)();
    b();
    (await e)();
    assert.deepStrictEqual(order, ["d", "e"]);
  });

  it("caps concurrent holders at its size", async () => {
    const s = new Semaphore(4);
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const r = await s.acquire();
        running++;
        peak = Math.max(peak, running);
        await new Promise((res) => setTimeout(res, 5));
        running--;
        r();
      }),
    );
    assert.strictEqual(peak, 4);
  });
});
