// Host health, through the provider module and through the `pulumi-kvm health` command.
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { checkHost } from "../../provider/health/check";
import { HostPool } from "../../provider/pool/host-pool";
import { runCli } from "../support/cli";
import { labHost } from "../support/hosts";
import { labEnv, repoRoot } from "../support/lab";
import { knownHostsFor } from "../support/sshd";
import { TcpProxy } from "../support/tcp-proxy";
import { virsh } from "../support/virsh";
import { tempDir } from "../support/tmp";

describe("health", function () {
  this.timeout(120_000);
  const tmp = tempDir("health-");
  const pool = new HostPool();
  after(async () => {
    await pool.closeAll();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("reports a healthy lab host with version, hostname and pool space", async () => {
    const lab = labEnv();
    const h = await checkHost(labHost(lab), { pool: lab.pool, network: lab.network, timeoutMs: 10_000 }, pool);
    assert.strictEqual(h.ok, true, h.error);
    assert.match(h.libvirtVersion ?? "", /^\d+\.\d+\.\d+$/);
    assert.strictEqual(h.hostname, os.hostname());
    assert.strictEqual(h.pool?.state, "running");
    assert.ok((h.pool?.availableBytes ?? 0) > 0 && (h.pool?.capacityBytes ?? 0) >= (h.pool?.availableBytes ?? 0));
    assert.deepStrictEqual(h.network, { name: lab.network, active: true });
  });

  const failing: [string, (t: string) => Partial<Parameters<typeof labHost>[1]>, string, RegExp][] = [
    ["a wrong port", () => ({ port: 1 }), "tcp", /ECONNREFUSED/],
    [
      "an unknown host key",
      (t) => {
        const f = path.join(t, "empty");
        fs.writeFileSync(f, "");
        return { knownHostsPath: f };
      },
      "ssh-handshake",
      /host key is unknown/,
    ],
    ["a wrong socket", () => ({ socketPath: "/run/nowhere.sock" }), "libvirt-connect", /nowhere\.sock/],
  ];
  for (const [what, over, stage, msg] of failing) {
    it(`names the ${stage} stage for ${what}`, async () => {
      const lab = labEnv();
      const h = await checkHost(labHost(lab, over(tmp)), { pool: lab.pool, timeoutMs: 10_000 }, new HostPool());
      assert.strictEqual(h.ok, false);
      assert.strictEqual(h.stage, stage);
      assert.match(h.error ?? "", msg);
    });
  }

  it("reports a stopped and a missing pool at the pool stage and keeps the connection", async () => {
    const lab = labEnv();
    const host = labHost(lab);
    const name = `health-${process.pid}`;
    const dir = path.join(lab.poolDir, "..", name);
    virsh(["pool-define-as", name, "dir", "--target", dir]);
    virsh(["pool-build", name]);
    try {
      const p = new HostPool();
      const stopped = await checkHost(host, { pool: name, timeoutMs: 10_000 }, p);
      assert.strictEqual(stopped.stage, "pool");
      assert.strictEqual(stopped.pool?.state, "inactive");
      assert.match(stopped.error ?? "", new RegExp(`"${name}" is inactive.*virsh pool-start ${name}`));
      const missing = await checkHost(host, { pool: "no-such-pool", timeoutMs: 10_000 }, p);
      assert.strictEqual(missing.stage, "pool");
      assert.match(missing.error ?? "", /does not exist \(VIR_ERR_NO_STORAGE_POOL\)/);
      virsh(["pool-start", name]);
      const ok = await checkHost(host, { pool: name, timeoutMs: 10_000 }, p);
      assert.strictEqual(ok.ok, true);
      assert.strictEqual(p.handshakes(host), 1, "pool verdicts never dropped the connection");
      await p.closeAll();
    } finally {
      try {
        virsh(["pool-destroy", name]);
      } catch {
        /* not running */
      }
      virsh(["pool-undefine", name]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("pulumi-kvm health", () => {
    it("reports a blackholed host as timeout within the timeout + 1 s while a healthy host answers quickly", async () => {
      const lab = labEnv();
      const proxy = await TcpProxy.start(lab.port);
      proxy.mode = "blackhole";
      try {
        const kh = knownHostsFor(lab, [lab.port, proxy.port], tmp);
        const r = await runCli([
          "health",
          "--host",
          `root@127.0.0.1:${lab.port}`,
          "--host",
          `root@127.0.0.1:${proxy.port}`,
          "--identity",
          lab.key,
          "--known-hosts",
          kh,
          "--timeout",
          "3s",
          "--json",
        ]);
        assert.strictEqual(r.code, 1, r.stderr);
        const out = JSON.parse(r.stdout);
        const [good, bad] = out.hosts;
        assert.strictEqual(good.ok, true, good.error);
        assert.ok(good.latencyMs < 2000, `healthy host took ${good.latencyMs} ms`);
        assert.strictEqual(good.pool.state, "running");
        assert.strictEqual(bad.ok, false);
        assert.strictEqual(bad.stage, "timeout");
        assert.strictEqual(bad.class, "timeout");
        assert.ok(bad.latencyMs <= 4000, `blackholed host took ${bad.latencyMs} ms`);
        assert.ok(r.ms < 3000 + 1000 + 1500, `the whole run took ${r.ms} ms`);
      } finally {
        await proxy.close();
      }
    });

    it("prints a table for people and exits 0 when all is healthy", async () => {
      const lab = labEnv();
      const r = await runCli(["health", "--host", `root@127.0.0.1:${lab.port}`, "--identity", lab.key, "--known-hosts", lab.knownHosts]);
      assert.strictEqual(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^HOST\s+STATUS\s+STAGE\s+LIBVIRT\s+HOSTNAME\s+POOL\s+FREE\s+LATENCY/);
      assert.match(r.stdout, /root@127\.0\.0\.1:2222\s+ok\s+-\s+\d+\.\d+\.\d+/);
    });

    it("adds a NETWORK column for --network and names a failed host once in its error", async () => {
      const lab = labEnv();
      const closed = await TcpProxy.start(lab.port);
      const closedPort = closed.port;
      await closed.close();
      const r = await runCli([
        "health",
        "--host",
        `root@127.0.0.1:${lab.port}`,
        "--host",
        `root@127.0.0.1:${closedPort}`,
        "--identity",
        lab.key,
        "--known-hosts",
        lab.knownHosts,
        "--network",
        lab.network,
      ]);
      assert.strictEqual(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^HOST\s+STATUS\s+STAGE\s+LIBVIRT\s+HOSTNAME\s+POOL\s+FREE\s+NETWORK\s+LATENCY/);
      assert.match(r.stdout, new RegExp(`root@127\\.0\\.0\\.1:${lab.port}\\s+ok\\s.*${lab.network} \\(active\\)`));
      const label = `root@127.0.0.1:${closedPort}`;
      const errorLine = r.stdout.split("\n").find((l) => l.trim().startsWith(label) && /refused|connect/i.test(l));
      assert.ok(errorLine, r.stdout);
      assert.strictEqual(errorLine.split(label).length - 1, 1, `the host label appears once in: ${errorLine}`);
      assert.ok(!errorLine.startsWith(`  ${label}: ${label}`), errorLine);
      const plain = await runCli(["health", "--host", `root@127.0.0.1:${lab.port}`, "--identity", lab.key, "--known-hosts", lab.knownHosts]);
      assert.doesNotMatch(plain.stdout, /NETWORK/, "no NETWORK column without --network");
    });

    it("reads like the docs: --help on stdout (exit 0) lists every option of docs/health.md; no command is a usage error", async () => {
      const top = await runCli(["--help"]);
      assert.strictEqual(top.code, 0);
      assert.match(top.stdout, /commands:[\s\S]*health/);
      const bare = await runCli([]);
      assert.strictEqual(bare.code, 2);
      assert.match(bare.stderr, /usage: pulumi-kvm <command>/);
      const v = await runCli(["--version"]);
      assert.strictEqual(v.stdout.trim(), JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version);
      const help = await runCli(["health", "--help"]);
      assert.strictEqual(help.code, 0);
      assert.strictEqual(help.stderr, "");
      const optionCells = fs
        .readFileSync(path.join(repoRoot, "docs", "health.md"), "utf8")
        .split("\n")
        .filter((l) => l.startsWith("| `"))
        .map((l) => l.split("|")[1]);
      const documented = new Set(optionCells.flatMap((cell) => cell.match(/--[a-z-]+/g) ?? []));
      const offered = new Set([...help.stdout.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]));
      offered.delete("--help");
      assert.deepStrictEqual([...offered].sort(), [...documented].sort(), "the options of --help are those docs/health.md documents");
      const wrong = await runCli(["health", "--hots", "x"]);
      assert.strictEqual(wrong.code, 2);
      assert.match(wrong.stderr, /--hots[\s\S]*pulumi-kvm health --help/);
    });

    it("starts with --watch --interval 12s alone (timeout derived)", async () => {
      const lab = labEnv();
      const r = await runCli(
        ["health", "--host", `root@127.0.0.1:${lab.port}`, "--identity", lab.key, "--known-hosts", lab.knownHosts, "--watch", "--interval", "12s"],
        { untilStdout: /LATENCY[\s\S]*ms/ },
      );
      assert.match(r.stdout, /\bok\b/);
      assert.doesNotMatch(r.stderr, /usage/);
    });

    it("refuses --timeout 20s --interval 10s with exit code 2 and says why", async () => {
      const r = await runCli(["health", "--host", "root@127.0.0.1", "--watch", "--timeout", "20s", "--interval", "10s"]);
      assert.strictEqual(r.code, 2);
      assert.match(r.stderr, /--timeout 20s is longer than --interval 10s/);
    });

    it("refuses a malformed --host with exit code 2", async () => {
      const r = await runCli(["health", "--host", "root@:x:y"]);
      assert.strictEqual(r.code, 2);
      assert.match(r.stderr, /is not \[user@\]address\[:port\]/);
    });
  });
});
