import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { fileChunks, fileData, fileReads, uploadChunks, type Hole } from "../../provider/image/chunks";
import { dataRanges, holesReported } from "../../provider/image/file-extents";
import { sha256File } from "../../provider/image/file-digest";
import type { UploadChunk } from "../../provider/rpc/stream";
import { tempDir } from "../support/tmp";

async function collect(file: string, sparse: boolean, readSize?: number): Promise<UploadChunk[]> {
  const out: UploadChunk[] = [];
  // a chunk is valid until the next is read: keep a copy
  for await (const c of fileChunks(file, { sparse, readSize })) out.push("data" in c ? { data: Buffer.from(c.data) } : c);
  return out;
}

describe("fileChunks", () => {
  const dir = tempDir("chunks-");
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
    assert.strictEqual(
      chunks.reduce((n, c) => n + ("data" in c ? c.data.length : 0), 0),
      100000,
    );
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

/** A 64 MiB file with data at 1 MiB, 20 MiB and its last 4 KiB; the rest never written (holes). */
function sparseFile(dir: string): { file: string; content: Buffer } {
  const file = path.join(dir, `sparse-${Math.random().toString(36).slice(2)}`);
  const content = Buffer.alloc(64 * 1024 * 1024);
  crypto.randomBytes(256 * 1024).copy(content, 1024 * 1024);
  crypto.randomBytes(512 * 1024).copy(content, 20 * 1024 * 1024);
  crypto.randomBytes(4096).copy(content, content.length - 4096);
  const fd = fs.openSync(file, "w");
  try {
    fs.ftruncateSync(fd, content.length);
    for (const [at, len] of [
      [1024 * 1024, 256 * 1024],
      [20 * 1024 * 1024, 512 * 1024],
      [content.length - 4096, 4096],
    ]) {
      fs.writeSync(fd, content, at, len, at);
    }
  } finally {
    fs.closeSync(fd);
  }
  return { file, content };
}

const rebuild = (items: (Buffer | Hole)[]) => Buffer.concat(items.map((i) => (Buffer.isBuffer(i) ? i : Buffer.alloc(i.hole))));

describe("file holes (SEEK_DATA/SEEK_HOLE)", () => {
  const dir = tempDir("holes-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("can ask for holes on Linux (fs-ext is installed and loads)", function () {
    if (process.platform !== "linux") this.skip(); // the lab and CI are Linux: there it must hold
    assert.ok(holesReported(), "fs-ext did not load: npm ci must build it (needs a C++ toolchain)");
  });

  it("finds a sparse file's data ranges, and none in a file that is all hole", () => {
    const { file } = sparseFile(dir);
    const fd = fs.openSync(file, "r");
    try {
      const ranges = dataRanges(fd, fs.fstatSync(fd).size);
      const data = ranges.reduce((n, [s, e]) => n + e - s, 0);
      // the filesystem rounds to its blocks: at most a few MiB, never the whole 64
      assert.ok(data >= 772 * 1024 && data < 8 * 1024 * 1024, `data ranges ${JSON.stringify(ranges)}`);
      for (const [at, len] of [
        [1024 * 1024, 256 * 1024],
        [20 * 1024 * 1024, 512 * 1024],
        [64 * 1024 * 1024 - 4096, 4096],
      ]) {
        assert.ok(
          ranges.some(([s, e]) => s <= at && at + len <= e),
          `written bytes at ${at} outside ${JSON.stringify(ranges)}`,
        );
      }
    } finally {
      fs.closeSync(fd);
    }
    const empty = path.join(dir, "empty");
    fs.closeSync(fs.openSync(empty, "w"));
    fs.truncateSync(empty, 8 * 1024 * 1024);
    const efd = fs.openSync(empty, "r");
    try {
      assert.deepStrictEqual(dataRanges(efd, 8 * 1024 * 1024), []);
    } finally {
      fs.closeSync(efd);
    }
  });

  it("fileData passes holes on unread and rebuilds the exact file", async () => {
    const { file, content } = sparseFile(dir);
    const items: (Buffer | Hole)[] = [];
    for await (const i of fileData(file, { readSize: 1024 * 1024, reuse: true })) items.push(Buffer.isBuffer(i) ? Buffer.from(i) : i);
    assert.ok(rebuild(items).equals(content));
    const read = items.reduce((n, i) => n + (Buffer.isBuffer(i) ? i.length : 0), 0);
    assert.ok(read < 8 * 1024 * 1024, `${read} bytes read of a file with 772 KiB of data`);
    assert.ok(
      items.some((i) => !Buffer.isBuffer(i)),
      "no hole passed on",
    );
  });

  it("a sparse upload sends the same chunks whether holes were reported or read as zeros", async () => {
    const { file, content } = sparseFile(dir);
    const fromHoles = await collect(file, true);
    const fromZeros: UploadChunk[] = [];
    for await (const c of uploadChunks(fileReads(file), { sparse: true })) fromZeros.push("data" in c ? { data: Buffer.from(c.data) } : c);
    const asBytes = (cs: UploadChunk[]) => Buffer.concat(cs.map((c) => ("data" in c ? c.data : Buffer.alloc(c.hole))));
    assert.ok(asBytes(fromHoles).equals(content));
    assert.ok(asBytes(fromZeros).equals(content));
    const sent = (cs: UploadChunk[]) => cs.reduce((n, c) => n + ("data" in c ? c.data.length : 0), 0);
    assert.strictEqual(sent(fromHoles), sent(fromZeros));
    assert.strictEqual(sent(fromHoles), 772 * 1024);
  });

  it("a non-sparse upload sends a reported hole as zero bytes of data", async () => {
    async function* source(): AsyncGenerator<Buffer | Hole> {
      yield Buffer.from("ab");
      yield { hole: 5 * 1024 * 1024 + 3 };
      yield Buffer.from("cd");
    }
    const chunks = [];
    for await (const c of uploadChunks(source(), { sparse: false })) {
      assert.ok("data" in c, "a hole reached an upload that cannot take holes");
      chunks.push(Buffer.from(c.data));
    }
    assert.ok(Buffer.concat(chunks).equals(Buffer.concat([Buffer.from("ab"), Buffer.alloc(5 * 1024 * 1024 + 3), Buffer.from("cd")])));
  });

  it("hashes a sparse file to the sha256 of its bytes", async () => {
    const { file, content } = sparseFile(dir);
    assert.strictEqual(await sha256File(file), crypto.createHash("sha256").update(content).digest("hex"));
  });
});
