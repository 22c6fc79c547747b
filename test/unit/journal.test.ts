// The leftover journal of failed creates: no credentials in it, readable by this user
// only, no entry lost when creates fail in parallel, keyed by where the host is (a
// rotated key still clears it), and a leftover removed only if it is still the object made.
// Each object is journalled before it is made: a create in flight (its process runs) is
// no leftover; one whose process died (Ctrl-C, a kill) is.
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ErrorCode } from "../../provider/rpc/error-codes";
import { LibvirtError } from "../../provider/libvirt/api";
import { setLogSink } from "../../provider/log";
import { HostAccess } from "../../provider/resources/context";
import { clearLeftovers, isJournalled, Making, removeLeftover, rollback } from "../../provider/resources/rollback";
import { RpcTransportError } from "../../provider/rpc/errors";
import { spawnSync } from "child_process";

const host = { address: "hv1.example.com", user: "root", privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEYBODY\n-----END OPENSSH PRIVATE KEY-----", passphrase: "SECRETPASSPHRASE" };
const unreachable = { run: async () => { throw new Error("connect ECONNREFUSED"); }, describe: () => ({ label: "root@hv1.example.com", identity: "x" }) } as unknown as HostAccess;
const noSuch = (code: string) => new LibvirtError({ code: ErrorCode[code], domain: 0, message: code, level: 2 } as any, "virX");

/** A host where one volume and one domain exist, recording what was removed. */
function hostWith(o: { volKey?: string; domUuid?: string; marked?: boolean }) {
  const removed: string[] = [];
  const lv = {
    lookupPool: async (name: string) => ({ name, uuid: Buffer.alloc(16) }),
    lookupVolume: async (pool: { name: string }, name: string) => {
      if (!o.volKey) throw noSuch("VIR_ERR_NO_STORAGE_VOL");
      return { pool: pool.name, name, key: o.volKey };
    },
    deleteVolume: async (v: { name: string }) => { removed.push(`volume ${v.name}`); },
    lookupDomain: async (name: string) => {
      if (!o.domUuid) throw noSuch("VIR_ERR_NO_DOMAIN");
      return { name, uuid: Buffer.from(o.domUuid, "hex"), id: -1 };
    },
    domainMetadata: async () => { if (!o.marked) throw noSuch("VIR_ERR_NO_DOMAIN_METADATA"); return "<resource/>"; },
    domainState: async () => ({ state: 5, reason: 0 }),
    destroyDomain: async () => undefined,
    undefineDomain: async (d: { name: string }) => { removed.push(`domain ${d.name}`); },
  };
  return { lv: lv as any, removed };
}

describe("leftover journal", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "journal-"));
  const file = path.join(dir, "leftovers.json");
  before(() => { process.env.PULUMI_KVM_JOURNAL = file; setLogSink(() => undefined); });
  after(() => { delete process.env.PULUMI_KVM_JOURNAL; setLogSink(undefined); fs.rmSync(dir, { recursive: true, force: true }); });
  beforeEach(() => fs.rmSync(file, { force: true }));

  it("holds no credentials and is readable by this user only, also over a file that was world-readable", async () => {
    fs.writeFileSync(file, "[]", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "v1", id: "/p/v1" }, 1);
    const text = fs.readFileSync(file, "utf8");
    assert.doesNotMatch(text, /SECRET|PRIVATE KEY/);
    assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepStrictEqual(JSON.parse(text).map((e: any) => [e.kind, e.name, e.id]), [["volume", "v1", "/p/v1"]]);
    assert.ok(isJournalled(host, "volume", "v1", "default"));
  });

  it("loses no entry when creates fail while another operation clears the journal", async () => {
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "old", id: "/p/old" }, 1);
    // the next operation removes "old" slowly, while ten other creates fail
    const { lv } = hostWith({ volKey: "/p/old" });
    const slow = { ...lv, deleteVolume: async () => { await new Promise((r) => setTimeout(r, 200)); } };
    const clearing = clearLeftovers(host, slow);
    await new Promise((r) => setTimeout(r, 20));
    await Promise.all([clearing, ...Array.from({ length: 10 }, (_, i) => rollback(unreachable, { host, kind: "volume", pool: "default", name: `p${i}` }, 1))]);
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")).map((e: any) => e.name).sort(), Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
  });

  it("is cleared by the next operation on the host with other credentials (a rotated key)", async () => {
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "rot", id: "/p/rot" }, 1);
    const { lv, removed } = hostWith({ volKey: "/p/rot" });
    await clearLeftovers({ address: "hv1.example.com", user: "root", privateKeyPath: "/rotated/key" }, lv);
    assert.deepStrictEqual(removed, ["volume rot"]);
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), []);
  });

  it("removes a volume only if it is still the one made (same key)", async () => {
    const other = hostWith({ volKey: "/p/someone-elses" });
    assert.strictEqual(await removeLeftover(other.lv, { kind: "volume", pool: "default", name: "v", id: "/p/v" }), "other");
    assert.deepStrictEqual(other.removed, []);
    const same = hostWith({ volKey: "/p/v" });
    assert.strictEqual(await removeLeftover(same.lv, { kind: "volume", pool: "default", name: "v", id: "/p/v" }), "removed");
    assert.deepStrictEqual(same.removed, ["volume v"]);
  });

  it("removes a domain only if it has the UUID made and pulumi-kvm's ownership marker", async () => {
    const uuid = "0b5b6a7e1a2b4c3d9e8f001122334455";
    const otherUuid = hostWith({ domUuid: "ff".repeat(16), marked: true });
    assert.strictEqual(await removeLeftover(otherUuid.lv, { kind: "domain", name: "vm", id: uuid }), "other");
    const unmarked = hostWith({ domUuid: uuid, marked: false });
    assert.strictEqual(await removeLeftover(unmarked.lv, { kind: "domain", name: "vm", id: uuid }), "other");
    const ours = hostWith({ domUuid: uuid, marked: true });
    assert.strictEqual(await removeLeftover(ours.lv, { kind: "domain", name: "vm", id: uuid }), "removed");
    assert.deepStrictEqual([otherUuid.removed, unmarked.removed, ours.removed], [[], [], ["domain vm"]]);
  });
  const journal = () => JSON.parse(fs.readFileSync(file, "utf8")) as { name: string; pid?: number; id?: string }[];
  /** A pid that no process has any more. */
  const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

  it("journals an object before the call that makes it, as this process's, and forgets it once the create is kept", async () => {
    const making = new Making(unreachable, host);
    let during: ReturnType<typeof journal> = [];
    await making.make({ kind: "volume", pool: "default", name: "mk" }, async () => { during = journal(); return { key: "/p/mk" }; }, (v) => v.key);
    assert.deepStrictEqual(during.map((e) => [e.name, e.pid]), [["mk", process.pid]], "journalled before the call, with this pid");
    assert.ok(!isJournalled(host, "volume", "mk", "default"), "a create in flight is no leftover: its name is not free");
    const { lv, removed } = hostWith({ volKey: "/p/mk" });
    await clearLeftovers(host, lv);
    assert.deepStrictEqual(removed, [], "the next operation leaves a create in flight alone");
    await making.kept();
    assert.deepStrictEqual(journal(), []);
  });

  it("forgets an object libvirt refused to make; one whose call the link cut off is undone by name", async () => {
    const making = new Making(unreachable, host);
    await assert.rejects(making.make({ kind: "volume", pool: "default", name: "refused" }, async () => { throw noSuch("VIR_ERR_STORAGE_VOL_EXIST"); }, () => ""));
    assert.deepStrictEqual(journal(), [], "libvirt answered: nothing was made");
    await assert.rejects(making.make({ kind: "volume", pool: "default", name: "cut" }, async () => { throw new RpcTransportError("link reset"); }, () => ""));
    const { lv, removed } = hostWith({ volKey: "/p/cut" });
    const reachable = { run: (_h: unknown, fn: (l: unknown) => unknown) => fn(lv), describe: unreachable.describe } as unknown as HostAccess;
    const cutOff = new Making(reachable, host);
    await assert.rejects(cutOff.make({ kind: "volume", pool: "default", name: "cut" }, async () => { throw new RpcTransportError("link reset"); }, () => ""));
    await cutOff.undo();
    assert.deepStrictEqual(removed, ["volume cut"], "the outcome was unknown: what has its name is removed");
    assert.deepStrictEqual(journal().map((e) => e.name), ["cut"], "only the first create's entry is left (its undo never ran)");
  });

  it("keeps what it cannot undo for the next operation, and a dead process's creates are leftovers", async () => {
    const making = new Making(unreachable, host);
    await making.make({ kind: "volume", pool: "default", name: "kept" }, async () => ({ key: "/p/kept" }), (v) => v.key);
    await making.undo();
    assert.deepStrictEqual(journal().map((e) => [e.name, e.pid, e.id]), [["kept", undefined, "/p/kept"]], "nobody makes it now: a leftover, with its key");
    fs.writeFileSync(file, JSON.stringify([{ kind: "volume", pool: "default", name: "orphan", place: journal()[0] && (journal()[0] as any).place, pid: deadPid(), token: "t" }]));
    assert.ok(isJournalled(host, "volume", "orphan", "default"), "its process is gone: the name counts as free");
    const { lv, removed } = hostWith({ volKey: "/p/orphan" });
    await clearLeftovers(host, lv);
    assert.deepStrictEqual(removed, ["volume orphan"]);
    assert.deepStrictEqual(journal(), []);
  });

  it("is written through a new temp file of its own (a planted link is not followed) and trusts only a regular file of this user's", async () => {
    const victim = path.join(dir, "victim");
    fs.writeFileSync(victim, "untouched");
    // the temp name an earlier version used, planted as a link
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`);
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "v2", id: "/p/v2" }, 1);
    assert.strictEqual(fs.readFileSync(victim, "utf8"), "untouched");
    assert.ok(fs.lstatSync(file).isFile());
    assert.deepStrictEqual(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp") && !fs.lstatSync(path.join(dir, f)).isSymbolicLink()), []);
    // a journal that is a link, or another user's file, is not read
    fs.rmSync(file);
    fs.writeFileSync(victim, JSON.stringify([{ kind: "volume", pool: "default", name: "v3", place: JSON.stringify([host.address, 22, host.user, "", ""]) }]));
    fs.symlinkSync(victim, file);
    assert.ok(!isJournalled(host, "volume", "v3", "default"), "a journal behind a link was trusted");
    fs.rmSync(file);
    if (process.getuid?.() === 0) {
      fs.copyFileSync(victim, file);
      assert.ok(isJournalled(host, "volume", "v3", "default"), "this user's own journal is read");
      fs.chownSync(file, 65534, 65534);
      assert.ok(!isJournalled(host, "volume", "v3", "default"), "another user's journal was trusted");
    }
    fs.rmSync(`${file}.${process.pid}.tmp`);
  });

  it("refuses a directory others can write to, naming PULUMI_KVM_JOURNAL", async () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), "journal-shared-"));
    fs.chmodSync(shared, 0o1777);
    process.env.PULUMI_KVM_JOURNAL = path.join(shared, "leftovers.json");
    try {
      const making = new Making(unreachable, host);
      await assert.rejects(making.make({ kind: "volume", pool: "default", name: "x" }, async () => ({ key: "/p/x" }), (v) => v.key), /can be written by other users; set PULUMI_KVM_JOURNAL/);
      assert.ok(!fs.existsSync(path.join(shared, "leftovers.json")));
    } finally {
      process.env.PULUMI_KVM_JOURNAL = file;
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });
});
