import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { fileChunks, fileReads } from "../../provider/image/chunks";

async function collect(file: string, sparse: boolean, readSize?: number) {
  const out = [];
  // a chunk is valid until the next is read: keep a copy
  for await (const c of fileChunks(file, { sparse, readSize })) out.push("data" in c ? { data: Buffer.from(c.data) } : c);
  return out;
}

describe("fileChunks", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chunks-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("turns zero runs into holes and rebuilds the exact file", async () => {
    const file = path.join(dir, "a");
    const content = Buffer.concat([Buffer.alloc(10000, 1), Buffer.alloc(3 * 1024 * 1024), Buffer.alloc(5000, 2), Buffer.alloc(8192)]);
    fs.writeFileSync(file, content);
    for (const readSize of [4096, 65536, 1024 * 1024]) {
      const chunks = await collect(file, true, readSize);
      const rebuilt = Buffer.concat(chunks.map((c) => ("hole" in c ? Buffer.alloc(c.hole) : c.data)));
      assert.ok(rebuilt.equals(content), `readSize ${readSize}`);
      const sent = chunks.reduce((n, c) => n + ("data" in c ? c.data.length : 0), 0);
      assert.ok(sent < 24 * 1024, `sent ${sent} bytes of data`);
      // holes and data alternate: no two holes in a row
      for (let i = 1; i < chunks.length; i++) assert.ok(!("hole" in chunks[i] && "hole" in chunks[i - 1]));
    }
  });

  it("sends everything as data when not sparse", async () => {
    const file = path.join(dir, "b");
    fs.writeFileSync(file, Buffer.alloc(100000));
    const chunks = await collect(file, false);
    assert.ok(chunks.every((c) => "data" in c));
    assert.strictEqual(chunks.reduce((n, c) => n + ("data" in c ? c.data.length : 0), 0), 100000);
  });

  it("reads a file several reads ahead into a few reused buffers, in order", async () => {
    const file = path.join(dir, "ahead");
    const content = crypto.randomBytes(10 * 1024 * 1024 + 123);
    fs.writeFileSync(file, content);
    const copies: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for await (const b of fileReads(file, { readSize: 1024 * 1024, ahead: 3, reuse: true })) {
      copies.push(Buffer.from(b));
      buffers.add(b.buffer);
    }
    assert.ok(Buffer.concat(copies).equals(content));
    assert.strictEqual(copies.length, 11);
    assert.ok(buffers.size <= 4, `${buffers.size} buffers for 3 reads ahead`);
  });
});
