// The hashing thread of a local image's upload: the digests of data and holes in the
// order given, each buffer back with its bytes, reading held while too many are out.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { fileData } from "../../provider/image/chunks";
import { holesReported } from "../../provider/image/file-extents";
import { HashThread } from "../../provider/image/hash-thread";
import { tempDir } from "../support/tmp";

const own = (bytes: Buffer) => {
  const b = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(b);
  return b;
};

describe("HashThread", () => {
  it("hashes buffers and holes in order, with sha256 and sha512, and gives each buffer back with its bytes", async () => {
    const parts = [crypto.randomBytes(3000), 5000, crypto.randomBytes(70_000), 1, crypto.randomBytes(1)] as const;
    const want = [crypto.createHash("sha256"), crypto.createHash("sha512")];
    const hasher = new HashThread(["sha256", "sha512"]);
    const back: Buffer[] = [];
    for (const p of parts) {
      const bytes = typeof p === "number" ? Buffer.alloc(p) : p;
      for (const h of want) h.update(bytes);
      if (typeof p === "number") hasher.zeros(p);
      else await hasher.update(own(p), (b) => back.push(b));
    }
    assert.deepStrictEqual(
      await hasher.digests(),
      want.map((h) => h.digest("hex")),
    );
    assert.deepStrictEqual(back, [parts[0], parts[2], parts[4]], "every buffer came back, its bytes unchanged");
  });

  it("refuses a view that is not at the start of a buffer of its own (its memory cannot move)", async () => {
    const hasher = new HashThread(["sha256"]);
    try {
      await assert.rejects(
        hasher.update(Buffer.allocUnsafeSlow(16).subarray(4), () => undefined),
        /a view at the start of a buffer of its own/,
      );
    } finally {
      await hasher.close();
    }
  });

  it("hashes a sparse file read with fileData (data and holes, in small reads whose buffers come back) as the file's sha256", async () => {
    const file = path.join(tempDir("hash-thread-"), "sparse.raw");
    const fd = fs.openSync(file, "w");
    fs.ftruncateSync(fd, 8 * 1024 * 1024);
    fs.writeSync(fd, crypto.randomBytes(100_000), 0, 100_000, 3 * 1024 * 1024);
    fs.closeSync(fd);
    const hasher = new HashThread(["sha256"]);
    const reads = fileData(file, {
      readSize: 16 * 1024,
      reuse: true,
      done: (item, back) => (Buffer.isBuffer(item) ? hasher.update(item, back) : hasher.zeros(item.hole)),
    });
    let holes = 0;
    for await (const item of reads) if (!Buffer.isBuffer(item)) holes++;
    assert.deepStrictEqual(await hasher.digests(), [crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")]);
    // where the filesystem reports holes (fs-ext built), they came as holes, hashed as zeros
    if (holesReported()) assert.ok(holes >= 2, `the file's holes came as holes (${holes})`);
  });
});
