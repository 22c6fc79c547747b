// `health --stack` remembers the hosts it checked, per project directory and stack, so the
// next check dials them while `pulumi stack export` runs.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { rememberedHosts, rememberHosts } from "../../cli/remembered-hosts";
import type { HostConfig } from "../../provider/ssh/host";
import { tempDir } from "../support/tmp";

describe("hosts remembered by health --stack", () => {
  const dir = tempDir("remembered-");
  const host = (port: number): HostConfig => ({ address: "hv.example", port, user: "root", privateKeyPath: "/k" });

  before(() => {
    process.env.PULUMI_KVM_JOURNAL = path.join(dir, "journal.json");
  });
  after(() => {
    delete process.env.PULUMI_KVM_JOURNAL;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives nothing before a stack's first check, then the hosts it found, per project directory and stack", () => {
    assert.deepStrictEqual(rememberedHosts("/p", "dev"), []);
    rememberHosts("/p", "dev", [host(1), host(2)]);
    assert.deepStrictEqual(rememberedHosts("/p", "dev"), [host(1), host(2)]);
    assert.deepStrictEqual(rememberedHosts("/p", "prod"), []);
    assert.deepStrictEqual(rememberedHosts("/q", "dev"), []);
    rememberHosts("/p", "dev", [host(3)]);
    assert.deepStrictEqual(rememberedHosts("/p", "dev"), [host(3)], "the last check's hosts replace the earlier ones");
  });

  it("keeps no host whose login carries key material or a passphrase, in a file only this user can read", () => {
    rememberHosts("/p", "keys", [host(1), { ...host(2), privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----" }, { ...host(3), passphrase: "p" }]);
    assert.deepStrictEqual(rememberedHosts("/p", "keys"), [host(1)]);
    const files = fs.readdirSync(dir).filter((f) => f.startsWith("stack-hosts-"));
    assert.ok(files.length >= 1);
    for (const f of files) {
      assert.strictEqual(fs.statSync(path.join(dir, f)).mode & 0o077, 0, f);
      assert.ok(!fs.readFileSync(path.join(dir, f), "utf8").includes("PRIVATE KEY"), f);
    }
  });

  it("gives nothing for a file that does not parse", () => {
    const before = new Set(fs.readdirSync(dir));
    rememberHosts("/p", "bad", [host(1)]);
    const file = fs.readdirSync(dir).find((f) => !before.has(f));
    assert.ok(file, "the stack's file");
    fs.writeFileSync(path.join(dir, file), "{not json");
    assert.deepStrictEqual(rememberedHosts("/p", "bad"), []);
  });
});
