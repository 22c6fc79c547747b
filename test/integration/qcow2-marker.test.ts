// The identity written into a qcow2 header, checked with the real qemu-img: the image
// stays valid (qemu-img check), keeps its backing file, and keeps the identity when qemu
// rewrites its header (a resize, an internal snapshot).
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { execFileSync } from "child_process";
import { readMarker, withMarker } from "../../provider/image/qcow2-marker";
import { tempDir } from "../support/tmp";

const qemuImg = (...args: string[]) => execFileSync("qemu-img", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const head = (file: string) => fs.readFileSync(file).subarray(0, 64 * 1024);

function mark(file: string, uuid: string): void {
  const bytes = withMarker(head(file), uuid);
  const fd = fs.openSync(file, "r+");
  fs.writeSync(fd, bytes, 0, bytes.length, 0);
  fs.closeSync(fd);
}

describe("the identity in a qcow2 header", () => {
  const dir = tempDir("marker-");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [what, extra] of [
    ["a v3 image", []],
    ["a v2 (compat 0.10) image", ["-o", "compat=0.10"]],
  ] as const) {
    it(`is written into ${what} with and without a backing file, which stays valid and keeps it through qemu's own header rewrites`, () => {
      const base = path.join(dir, `base-${extra.length}.raw`);
      fs.writeFileSync(base, crypto.randomBytes(1024 * 1024));
      for (const backing of [undefined, base]) {
        const file = path.join(dir, `img-${extra.length}-${backing ? "overlay" : "blank"}.qcow2`);
        qemuImg("create", "-q", "-f", "qcow2", ...extra, ...(backing ? ["-b", backing, "-F", "raw"] : []), file, "16M");
        assert.strictEqual(readMarker(head(file)), undefined);
        const uuid = crypto.randomUUID();
        mark(file, uuid);
        assert.strictEqual(readMarker(head(file)), uuid);
        qemuImg("check", "-q", file);
        const info = JSON.parse(qemuImg("info", "--output", "json", file));
        assert.strictEqual(info["backing-filename"], backing);
        qemuImg("resize", "-q", file, "32M");
        qemuImg("snapshot", "-c", "s1", file);
        assert.strictEqual(readMarker(head(file)), uuid, "qemu dropped the extension when it rewrote the header");
        qemuImg("check", "-q", file);
        // written again (an adopted volume marked anew) it replaces, never duplicates
        const again = crypto.randomUUID();
        mark(file, again);
        assert.strictEqual(readMarker(head(file)), again);
        assert.strictEqual(head(file).indexOf(Buffer.from(uuid.replace(/-/g, ""), "hex")), -1);
        assert.strictEqual(JSON.parse(qemuImg("info", "--output", "json", file))["backing-filename"], backing);
      }
    });
  }

  it("reads no identity from a raw image or bytes that only look like a header", () => {
    assert.strictEqual(readMarker(crypto.randomBytes(65536)), undefined);
    const fake = Buffer.alloc(65536);
    fake.writeUInt32BE(0x514649fb, 0);
    fake.writeUInt32BE(3, 4);
    fake.writeUInt32BE(16, 20);
    fake.writeUInt32BE(0xffffff00, 100); // extensions far outside the header cluster
    assert.strictEqual(readMarker(fake), undefined);
    assert.throws(() => withMarker(fake, crypto.randomUUID()), /not a qcow2 header/);
  });
});
