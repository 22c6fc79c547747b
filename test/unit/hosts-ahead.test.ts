import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { dialAhead, noteHost } from "../../provider/resources/hosts-ahead";
import type { HostConfig } from "../../provider/ssh/host";
import { tempDir } from "../support/tmp";

describe("hosts dialled ahead of their checks", () => {
  const dir = tempDir("hosts-ahead-");
  const engine = "127.0.0.1:45639";
  const file = path.join(dir, "hosts-127.0.0.1_45639.jsonl");
  const dialled: string[] = [];
  const pool = {
    dialAhead: (h: HostConfig) => dialled.push(`${h.address}:${h.port}`),
    describe: (h: HostConfig) => ({ label: h.address, identity: h.address }),
  };
  const host = (port: number): HostConfig => ({ address: "hv.example", port, user: "root", privateKeyPath: "/k" });

  before(() => {
    process.env.PULUMI_KVM_JOURNAL = path.join(dir, "leftovers.json");
    process.env.PULUMI_NODEJS_ENGINE = engine;
  });
  after(() => {
    delete process.env.PULUMI_KVM_JOURNAL;
    delete process.env.PULUMI_NODEJS_ENGINE;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("notes each host the program declares once, never one that carries key material or a passphrase, in a file only this user can read", () => {
    noteHost(host(1));
    noteHost(host(1));
    noteHost({ ...host(2), privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----" });
    noteHost(host(3));
    const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
    assert.deepStrictEqual(
      lines.map((l) => (JSON.parse(l) as HostConfig).port),
      [1, 3],
    );
    assert.strictEqual(fs.statSync(file).mode & 0o077, 0);
  });

  it("dials each noted host once, those noted since the last check only, and nothing without the engine's address", () => {
    dialAhead(pool, undefined);
    assert.deepStrictEqual(dialled, []);
    dialAhead(pool, engine);
    assert.deepStrictEqual(dialled, ["hv.example:1", "hv.example:3"]);
    noteHost(host(4));
    fs.appendFileSync(file, '{"address":"hv.example","port":5'); // a line still being written
    dialAhead(pool, engine);
    assert.deepStrictEqual(dialled, ["hv.example:1", "hv.example:3", "hv.example:4"]);
    fs.appendFileSync(file, ',"user":"root"}\n');
    dialAhead(pool, engine);
    assert.deepStrictEqual(dialled, ["hv.example:1", "hv.example:3", "hv.example:4", "hv.example:5"]);
  });

  it("leaves a file of an earlier run alone", () => {
    const other = "127.0.0.1:1";
    const stale = path.join(dir, "hosts-127.0.0.1_1.jsonl");
    fs.writeFileSync(stale, JSON.stringify(host(9)) + "\n", { mode: 0o600 });
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(stale, old, old);
    const before = dialled.length;
    dialAhead(pool, other);
    assert.strictEqual(dialled.length, before, "an hour old");
    fs.utimesSync(stale, new Date(), new Date());
    dialAhead(pool, other);
    assert.strictEqual(dialled.at(-1), "hv.example:9", "the same file, fresh");
  });
});
