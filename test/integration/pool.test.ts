// SSH dialing and the per-host pool against the lab's sshd and libvirtd, with a
// loopback TCP proxy of the tests' own to blackhole or reset the link on demand.
import * as assert from "assert";
import * as crypto from "crypto";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { create } from "xmlbuilder2";
import { classify, KvmError } from "../../provider/errors";
import { fileChunks } from "../../provider/image/chunks";
import { HostPool } from "../../provider/pool/host-pool";
import { DialError, DialStage } from "../../provider/ssh/dial-error";
import { acceptedLogins, labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { knownHostsFor, startSshd } from "../support/sshd";
import { TcpProxy } from "../support/tcp-proxy";
import { tempDir } from "../support/tmp";

const MiB = 1024 * 1024;

async function dialFailure(pool: HostPool, host: Parameters<HostPool["run"]>[0]): Promise<DialError> {
  try {
    await pool.run(host, (lv) => lv.hostname());
  } catch (err) {
    assert.ok(err instanceof DialError, `expected a DialError, got ${(err as Error).stack}`);
    return err;
  }
  throw new Error("the dial succeeded");
}

describe("SSH dialing and the host pool", function () {
  this.timeout(120_000);
  const tmp = tempDir("pool-");
  const pools: HostPool[] = [];
  const newPool = () => {
    const p = new HostPool();
    pools.push(p);
    return p;
  };
  after(async () => {
    for (const p of pools) await p.closeAll();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe("each dial stage fails with its stage and a useful message", () => {
    const cases: [string, () => Promise<Parameters<HostPool["run"]>[0]>, DialStage, RegExp, string][] = [
      [
        "no key file",
        async () => labHost(labEnv(), { privateKeyPath: path.join(tmp, "missing-key") }),
        "ssh-material",
        /missing-key does not exist/,
        "transient",
      ],
      [
        "a key that does not parse",
        async () => {
          const f = path.join(tmp, "bad-key");
          fs.writeFileSync(f, "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n");
          return labHost(labEnv(), { privateKeyPath: f });
        },
        "ssh-material",
        /not a private key/,
        "permanent",
      ],
      ["a wrong port", async () => labHost(labEnv(), { port: 1 }), "tcp", /ECONNREFUSED.*is sshd running/s, "unreachable"],
      [
        "an unknown host key",
        async () => {
          const f = path.join(tmp, "kh-empty");
          fs.writeFileSync(f, "");
          return labHost(labEnv(), { knownHostsPath: f });
        },
        "ssh-handshake",
        /host key is unknown.*SHA256:.*add this line.*\[127\.0\.0\.1\]:\d+ ssh-ed25519 AAAA/s,
        "permanent",
      ],
      [
        "a changed host key",
        async () => {
          const f = path.join(tmp, "kh-changed");
          execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", f + ".key"]);
          const lab = labEnv();
          fs.writeFileSync(
            f,
            `[127.0.0.1]:${lab.port} ${fs
              .readFileSync(f + ".key.pub", "utf8")
              .split(" ")
              .slice(0, 2)
              .join(" ")}\n`,
          );
          return labHost(lab, { knownHostsPath: f });
        },
        "ssh-handshake",
        /HOST KEY CHANGED/,
        "permanent",
      ],
      [
        "a wrong user",
        async () => labHost(labEnv(), { user: "nosuchuser" }),
        "ssh-handshake",
        /did not accept .* for user nosuchuser.*authorized_keys/s,
        "permanent",
      ],
      [
        "a wrong socket path",
        async () => labHost(labEnv(), { socketPath: "/run/nonexistent/libvirt-sock" }),
        "libvirt-connect",
        /nonexistent\/libvirt-sock.*libvirtd runs on the host/s,
        "unreachable",
      ],
    ];
    for (const [what, host, stage, message, errorClass] of cases) {
      it(what, async () => {
        const err = await dialFailure(newPool(), await host());
        assert.strictEqual(err.stage, stage, err.message);
        assert.match(err.message, message);
        assert.ok(err.message.includes("root@127.0.0.1") || err.message.includes("nosuchuser@"), "names the host");
        assert.strictEqual(classify(err).errorClass, errorClass);
        if (stage !== "ssh-material") assert.ok(err.cause, "keeps the original error as cause");
      });
    }

    it("forwarding disabled on the host", async () => {
      const lab = labEnv();
      const sshd = await startSshd(lab, { AllowStreamLocalForwarding: "no" });
      try {
        const err = await dialFailure(newPool(), labHost(lab, { port: sshd.port, knownHostsPath: knownHostsFor(lab, [sshd.port], tmp) }));
        assert.strictEqual(err.stage, "libvirt-connect");
        assert.match(err.message, /libvirt-sock.*AllowStreamLocalForwarding yes/s);
        assert.strictEqual(err.errorClass, "unreachable");
      } finally {
        await sshd.stop();
      }
    });
  });

  it("heals when a missing key file appears later, with no new pool", async () => {
    const lab = labEnv();
    const keyPath = path.join(tmp, "late-key");
    const pool = newPool();
    const host = labHost(lab, { privateKeyPath: keyPath });
    const err = await dialFailure(pool, host);
    assert.strictEqual(classify(err).errorClass, "transient");
    fs.copyFileSync(lab.key, keyPath);
    assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
  });

  it("dials once for 20 concurrent callers on a cold pool", async () => {
    const lab = labEnv();
    const pool = newPool();
    const host = labHost(lab);
    const before = acceptedLogins(lab.sshdLog);
    const names = await Promise.all(Array.from({ length: 20 }, () => pool.run(host, (lv) => lv.hostname())));
    assert.deepStrictEqual(new Set(names), new Set([os.hostname()]));
    assert.strictEqual(pool.handshakes(host), 1);
    await new Promise((r) => setTimeout(r, 200)); // sshd writes its log line asynchronously
    assert.strictEqual(acceptedLogins(lab.sshdLog) - before, 1, "sshd saw one login");
  });

  it("redials on the next call after the SSH session was killed", async () => {
    const lab = labEnv();
    const proxy = await TcpProxy.start(lab.port);
    try {
      const pool = newPool();
      const host = labHost(lab, { port: proxy.port, knownHostsPath: knownHostsFor(lab, [proxy.port], tmp) });
      await pool.run(host, (lv) => lv.hostname());
      proxy.reset();
      await new Promise((r) => setTimeout(r, 300));
      assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
      assert.strictEqual(pool.handshakes(host), 2);
      assert.strictEqual(proxy.accepted, 2);
    } finally {
      await proxy.close();
    }
  });

  it("detects a blackholed link by keepalive within its configured bound", async () => {
    const lab = labEnv();
    const proxy = await TcpProxy.start(lab.port);
    try {
      const pool = newPool();
      const host = labHost(lab, { port: proxy.port, knownHostsPath: knownHostsFor(lab, [proxy.port], tmp), keepaliveInterval: 1, keepaliveCount: 2 });
      const conn = await pool.connection(host);
      proxy.mode = "blackhole";
      const started = Date.now();
      await new Promise<void>((resolve) => conn.rpc.once("close", () => resolve()));
      const took = (Date.now() - started) / 1000;
      // bound: interval × (count + 1) plus one check period
      assert.ok(took <= 1 * (2 + 1) + 1.5, `detected after ${took} s`);
      assert.ok(conn.closed);
    } finally {
      await proxy.close();
    }
  });

  it("lets an upload finish intact while a probe on its link times out, and says busy at once until it returns", async () => {
    const lab = labEnv();
    const pool = newPool();
    const host = labHost(lab);
    const file = path.join(tmp, "upload.bin");
    fs.writeFileSync(file, crypto.randomBytes(256 * MiB));
    const want = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
    const name = `pool-probe-${process.pid}.raw`;
    const xml = create()
      .ele("volume")
      .ele("name")
      .txt(name)
      .up()
      .ele("capacity")
      .txt(String(256 * MiB))
      .up()
      .ele("target")
      .ele("format", { type: "raw" })
      .end();
    const vol = await pool.run(host, async (lv) => lv.createVolume(await lv.lookupPool(lab.pool), xml), { mutating: true });
    try {
      const upload = pool.run(host, (lv) => lv.uploadVolume(vol, fileChunks(file, { sparse: false })), { mutating: true });
      await new Promise((r) => setTimeout(r, 300)); // the upload is streaming
      const probe = (timeout: number) =>
        pool.probe(
          host,
          async (lv) => {
            await lv.libVersion();
            return lv.lookupPool(lab.pool);
          },
          timeout,
        );
      await assert.rejects(probe(5), (e: unknown) => e instanceof KvmError && e.errorClass === "timeout" && /within 5 ms/.test(e.message));
      // busy is reported at once: before the upload that holds the link ends, not after it
      const events: string[] = [];
      const uploaded = upload.then((p) => {
        events.push("upload ended");
        return p;
      });
      await assert.rejects(probe(5000), (e: unknown) => e instanceof KvmError && /probe busy/.test(e.message));
      events.push("probe answered busy");
      const progress = await uploaded;
      assert.deepStrictEqual(events, ["probe answered busy", "upload ended"]);
      assert.strictEqual(progress.sent, 256 * MiB);
      const h = crypto.createHash("sha256");
      await pool.run(host, async (lv) => {
        for await (const c of lv.downloadVolume(vol)) h.update(c);
      });
      assert.strictEqual(h.digest("hex"), want);
      assert.strictEqual(pool.handshakes(host), 1, "the link was never cut");
      assert.ok((await probe(5000)).name === lab.pool, "a probe after the upload works");
    } finally {
      await pool.run(host, (lv) => lv.deleteVolume(vol));
      fs.rmSync(file, { force: true });
    }
  });

  it("releases a waiter on the dial slot when its signal aborts, while the dial goes on for the others", async () => {
    const lab = labEnv();
    const proxy = await TcpProxy.start(lab.port);
    try {
      proxy.delayMs = 150; // every packet takes 150 ms: the dial takes seconds
      const pool = newPool();
      const host = labHost(lab, { port: proxy.port, knownHostsPath: knownHostsFor(lab, [proxy.port], tmp) });
      const first = pool.run(host, (lv) => lv.hostname());
      const ac = new AbortController();
      const waiter = pool.run(host, (lv) => lv.hostname(), { signal: ac.signal });
      setTimeout(() => ac.abort(new Error("caller gave up")), 200);
      // the waiter leaves at its abort, before the dial it waited on ends
      const events: string[] = [];
      const dialled = first.then((h) => {
        events.push("dial ended");
        return h;
      });
      await assert.rejects(waiter, /caller gave up/);
      events.push("waiter released");
      assert.strictEqual(await dialled, os.hostname());
      assert.deepStrictEqual(events, ["waiter released", "dial ended"]);
      assert.strictEqual(pool.handshakes(host), 1);
    } finally {
      await proxy.close();
    }
  });

  it("reaches a ~/.ssh/config alias through a ProxyJump hop", async () => {
    const lab = labEnv();
    const cfg = path.join(tmp, "ssh_config");
    fs.writeFileSync(
      cfg,
      [
        "Host labjump",
        "  HostName 127.0.0.1",
        `  Port ${lab.port2}`,
        "  User root",
        "Host labvm",
        "  HostName 127.0.0.1",
        `  Port ${lab.port}`,
        "  User root",
        `  IdentityFile ${lab.key}`,
        "  ProxyJump labjump",
      ].join("\n"),
    );
    const before = acceptedLogins(lab.sshdLog2);
    const pool = newPool();
    const host = { address: "labvm", sshConfigPath: cfg, knownHostsPath: lab.knownHosts };
    assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
    await new Promise((r) => setTimeout(r, 200));
    assert.strictEqual(acceptedLogins(lab.sshdLog2) - before, 1, "the jump host saw the login");
    assert.strictEqual(pool.describe(host).label, "root@labvm:2222");
  });
  it("ignores CanonicalizeHostname and CanonicalDomains: no nslookup runs, no canonical name's block applies", async () => {
    const lab = labEnv();
    const cfg = path.join(tmp, "ssh_config_canonical");
    // an nslookup on PATH that answers for every name and leaves a trace when run
    const bin = path.join(tmp, "bin");
    const ran = path.join(tmp, "nslookup-ran");
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, "nslookup"), `#!/bin/sh\necho "$@" >> ${ran}\necho "Name: $1"\n`, { mode: 0o755 });
    fs.writeFileSync(
      cfg,
      [
        "CanonicalizeHostname yes",
        "CanonicalDomains alias.example.invalid other.example.invalid",
        "Host labalias",
        "  CanonicalizeHostname yes",
        "  CanonicalDomains alias.example.invalid other.example.invalid",
        "  HostName 127.0.0.1",
        `  Port ${lab.port}`,
        "  User root",
        `  IdentityFile ${lab.key}`,
        // were the name canonicalized, this block would send the connection to a closed port
        "Host labalias.alias.example.invalid labalias.other.example.invalid",
        "  Port 1",
      ].join("\n"),
    );
    const pathBefore = process.env.PATH;
    process.env.PATH = `${bin}:${pathBefore}`;
    try {
      const pool = newPool();
      const host = { address: "labalias", sshConfigPath: cfg, knownHostsPath: lab.knownHosts };
      assert.strictEqual(await pool.run(host, (lv) => lv.hostname()), os.hostname());
      assert.strictEqual(pool.describe(host).label, `root@labalias:${lab.port}`);
    } finally {
      process.env.PATH = pathBefore;
    }
    assert.ok(!fs.existsSync(ran), `nslookup ran: ${fs.existsSync(ran) ? fs.readFileSync(ran, "utf8") : ""}`);
  });
});
