import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { utils } from "ssh2";
import { fingerprint, hostPattern, preferredHostKeyAlgorithms, verifyHostKey } from "../../provider/ssh/known-hosts";
import { hostIdentity, resolveHost } from "../../provider/ssh/host";
import { tempDir } from "../support/tmp";

function newKey(): Buffer {
  const k = utils.generateKeyPairSync("ed25519");
  return Buffer.from(k.public.split(" ")[1], "base64");
}

function hashed(name: string): string {
  const salt = crypto.randomBytes(20);
  return `|1|${salt.toString("base64")}|${crypto.createHmac("sha1", salt).update(name).digest("base64")}`;
}

describe("known_hosts verification", () => {
  const dir = tempDir("kh-");
  const key = newKey();
  const other = newKey();
  const b64 = key.toString("base64");
  const write = (lines: string[]) => {
    const f = path.join(dir, `kh-${crypto.randomUUID()}`);
    fs.writeFileSync(f, lines.join("\n") + "\n");
    return f;
  };
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("names hosts as OpenSSH does", () => {
    assert.strictEqual(hostPattern("h", 22), "h");
    assert.strictEqual(hostPattern("h", 2222), "[h]:2222");
  });

  it("accepts plain, [host]:port, wildcard and hashed entries", () => {
    for (const line of [`[10.0.0.1]:2222 ssh-ed25519 ${b64}`, `[10.0.0.*]:2222,other ssh-ed25519 ${b64}`, `${hashed("[10.0.0.1]:2222")} ssh-ed25519 ${b64}`]) {
      assert.deepStrictEqual(verifyHostKey(key, { host: "10.0.0.1", port: 2222, knownHostsPath: write([line]) }), { ok: true }, line);
    }
    // the same key on port 22 is not the same entry
    const v = verifyHostKey(key, { host: "10.0.0.1", port: 22, knownHostsPath: write([`[10.0.0.1]:2222 ssh-ed25519 ${b64}`]) });
    assert.strictEqual(v.ok, false);
  });

  it("refuses an unknown key with its fingerprint and the line to add", () => {
    const f = write(["# empty"]);
    const v = verifyHostKey(key, { host: "h", port: 2222, knownHostsPath: f });
    assert.ok(!v.ok);
    assert.match(v.reason, new RegExp(fingerprint(key).replace(/[+/]/g, "\\$&")));
    assert.ok(v.fix.includes(`[h]:2222 ssh-ed25519 ${b64}`));
  });

  it("refuses a changed key, naming the line", () => {
    const f = write(["# c", `h ssh-ed25519 ${other.toString("base64")}`]);
    const v = verifyHostKey(key, { host: "h", port: 22, knownHostsPath: f });
    assert.ok(!v.ok);
    assert.match(v.reason, /HOST KEY CHANGED.*line 2/);
  });

  it("refuses a @revoked key listed after a line that trusts it", () => {
    const v = verifyHostKey(key, { host: "h", port: 22, knownHostsPath: write([`h ssh-ed25519 ${b64}`, `@revoked h ssh-ed25519 ${b64}`]) });
    assert.strictEqual(v.ok, false);
    assert.match((v as { reason: string }).reason, /line 2 marks @revoked/);
  });

  it("never trusts a line behind an unknown marker or @cert-authority", () => {
    for (const marker of ["@trusted", "@cert-authority"]) {
      const v = verifyHostKey(key, { host: "h", port: 22, knownHostsPath: write([`${marker} h ssh-ed25519 ${b64}`]) });
      assert.strictEqual(v.ok, false, marker);
      assert.match((v as { reason: string }).reason, /host key is unknown/);
    }
  });

  it("refuses a @revoked key and honours negated patterns", () => {
    assert.strictEqual(verifyHostKey(key, { host: "h", port: 22, knownHostsPath: write([`@revoked h ssh-ed25519 ${b64}`]) }).ok, false);
    assert.strictEqual(verifyHostKey(key, { host: "h", port: 22, knownHostsPath: write([`*,!h ssh-ed25519 ${b64}`]) }).ok, false);
  });

  it("checks a pinned SHA256 fingerprint instead of known_hosts", () => {
    assert.deepStrictEqual(verifyHostKey(key, { host: "h", port: 22, knownHostsPath: "/nonexistent", pinned: fingerprint(key) }), { ok: true });
    assert.strictEqual(verifyHostKey(key, { host: "h", port: 22, knownHostsPath: "/nonexistent", pinned: fingerprint(other) }).ok, false);
  });

  it("prefers the host key algorithms known_hosts has", () => {
    assert.deepStrictEqual(preferredHostKeyAlgorithms(write([`h ssh-rsa AAAA`, `h ssh-ed25519 ${b64}`]), "h", 22), [
      "rsa-sha2-512",
      "rsa-sha2-256",
      "ssh-rsa",
      "ssh-ed25519",
    ]);
    assert.strictEqual(preferredHostKeyAlgorithms(write(["#"]), "h", 22), undefined);
  });
});

describe("host resolution through ~/.ssh/config", () => {
  it("takes HostName, Port, User, IdentityFile and a chain of ProxyJump hops", () => {
    const dir = tempDir("sshcfg-");
    const cfg = path.join(dir, "config");
    fs.writeFileSync(
      cfg,
      [
        "Host bastion",
        "  HostName 192.0.2.10",
        "  Port 2200",
        "  User jump",
        "Host hv1",
        "  HostName 198.51.100.5",
        "  Port 2222",
        "  User admin",
        "  IdentityFile ~/.ssh/hv_key",
        "  ProxyJump bastion,ops@192.0.2.11:22",
      ].join("\n"),
    );
    const h = resolveHost({ address: "hv1", sshConfigPath: cfg });
    assert.strictEqual(h.hostname, "198.51.100.5");
    assert.strictEqual(h.port, 2222);
    assert.strictEqual(h.user, "admin");
    assert.deepStrictEqual(h.identityFiles, [path.join(os.homedir(), ".ssh/hv_key")]);
    assert.deepStrictEqual(h.jumps, [
      { address: "192.0.2.10", port: 2200, user: "jump" },
      { address: "192.0.2.11", port: 22, user: "ops" },
    ]);
    // explicit settings win over the config file
    assert.strictEqual(resolveHost({ address: "hv1", port: 22, user: "root", sshConfigPath: cfg }).label, "root@hv1");
    assert.notStrictEqual(hostIdentity(h), hostIdentity(resolveHost({ address: "hv1", sshConfigPath: cfg, socketPath: "/other" })));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("never runs a Match exec command, and expands %h %n %p %r %u %d %% in HostName, IdentityFile and UserKnownHostsFile", () => {
    const dir = tempDir("sshcfg-");
    const cfg = path.join(dir, "config");
    const ran = path.join(dir, "ran");
    fs.writeFileSync(
      cfg,
      [
        `Match exec "touch ${ran}"`,
        "  User fromexec",
        "Host hv*",
        "  HostName %h.lab.example",
        "  Port 2200",
        "  IdentityFile ~/.ssh/%r@%h:%p-%n",
        "  IdentityFile %d/keys/%u-%%",
        "  UserKnownHostsFile ~/.ssh/known_%h_%p",
      ].join("\n"),
    );
    const h = resolveHost({ address: "hv1", user: "ops", sshConfigPath: cfg });
    assert.ok(!fs.existsSync(ran), "Match exec ran its command");
    assert.strictEqual(h.user, "ops");
    assert.strictEqual(h.hostname, "hv1.lab.example");
    assert.deepStrictEqual(h.identityFiles, [path.join(os.homedir(), ".ssh/ops@hv1.lab.example:2200-hv1"), `${os.homedir()}/keys/${os.userInfo().username}-%`]);
    assert.strictEqual(h.knownHostsPath, path.join(os.homedir(), ".ssh/known_hv1.lab.example_2200"));
    // a Match exec block never matches, so its settings never apply
    assert.strictEqual(resolveHost({ address: "other", sshConfigPath: cfg }).user, os.userInfo().username);
    fs.writeFileSync(cfg, "Host hv1\n  IdentityFile ~/.ssh/%C\n");
    assert.throws(() => resolveHost({ address: "hv1", sshConfigPath: cfg }), /IdentityFile ~\/\.ssh\/%C has the token %C/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
