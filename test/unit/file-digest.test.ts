// A local image's digest is computed once per version of the file on this machine: a later
// run (another process) reads none of an unchanged file, and any change of it (even with its
// mtime set back) is hashed again.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { fileVersion, rememberDigests } from "../../provider/image/file-digest";
import { tempDir } from "../support/tmp";

const digestModule = path.join(__dirname, "..", "..", "provider", "image", "file-digest.js");

/** The sha256 a fresh process gets for `file`, and how many hashing threads it started for it. */
function inAnotherProcess(file: string, stateDir: string): { digest: string; threads: number } {
  const script = `
    const wt = require("worker_threads");
    let threads = 0;
    const Worker = wt.Worker;
    wt.Worker = class extends Worker { constructor(...a) { super(...a); threads++; } };
    require(${JSON.stringify(digestModule)}).sha256File(${JSON.stringify(file)}).then((digest) => console.log(JSON.stringify({ digest, threads })));
  `;
  const out = execFileSync(process.execPath, ["-e", script], {
    env: { ...process.env, PULUMI_KVM_JOURNAL: path.join(stateDir, "leftovers.json") },
    encoding: "utf8",
  });
  return JSON.parse(out) as { digest: string; threads: number };
}

describe("a local image's digest across runs", () => {
  const dir = tempDir("file-digest-");
  const state = path.join(dir, "state");
  const file = path.join(dir, "image.raw");
  const sha256 = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("hashes a file once: a later process takes the remembered digest, kept where only this user can read it", () => {
    const content = crypto.randomBytes(1 << 20);
    fs.writeFileSync(file, content);
    assert.deepStrictEqual(inAnotherProcess(file, state), { digest: sha256(content), threads: 1 });
    assert.deepStrictEqual(inAnotherProcess(file, state), { digest: sha256(content), threads: 0 });
    assert.strictEqual(fs.statSync(path.join(state, "digests.json")).mode & 0o077, 0);
  });

  it("hashes it again once it changed, even with the same size and its mtime set back", () => {
    const { mtime } = fs.statSync(file);
    const other = crypto.randomBytes(1 << 20);
    fs.writeFileSync(file, other);
    fs.utimesSync(file, mtime, mtime);
    assert.deepStrictEqual(inAnotherProcess(file, state), { digest: sha256(other), threads: 1 });
  });
  it("keeps an upload's digest of the bytes it sent only when the file stayed the version it was when the upload began", () => {
    const previous = process.env.PULUMI_KVM_JOURNAL;
    process.env.PULUMI_KVM_JOURNAL = path.join(state, "leftovers.json");
    try {
      const content = crypto.randomBytes(1 << 16);
      fs.writeFileSync(file, content);
      const before = fileVersion(file);
      fs.appendFileSync(file, "changed while it uploaded");
      rememberDigests(file, before, { sha256: sha256(content) });
      assert.strictEqual(inAnotherProcess(file, state).threads, 1, "not kept for a file that changed meanwhile");
      const now = fileVersion(file);
      rememberDigests(file, now, { sha256: "ab".repeat(32) });
      assert.deepStrictEqual(inAnotherProcess(file, state), { digest: "ab".repeat(32), threads: 0 }, "kept as the upload computed it");
    } finally {
      if (previous === undefined) delete process.env.PULUMI_KVM_JOURNAL;
      else process.env.PULUMI_KVM_JOURNAL = previous;
    }
  });
});
