// The leftover journal of failed creates: no credentials in it, readable by this user
// only, no entry lost when creates fail in parallel, keyed by where the host is (a
// rotated key still clears it), and a leftover removed only if it is still the object made.
// Each object is journalled before it is made: a create in flight (its process runs) is
// no leftover; one whose process died (Ctrl-C, a kill) is.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { ErrorCode } from "../../provider/rpc/error-codes";
import { LibvirtError } from "../../provider/libvirt/api";
import { setLogSink } from "../../provider/log";
import { HostAccess } from "../../provider/resources/context";
import { clearLeftovers, isJournalled, Making, removeLeftover, rollback } from "../../provider/resources/rollback";
import { RpcTransportError } from "../../provider/rpc/errors";
import { spawn, spawnSync } from "child_process";
import { withMarker } from "../../provider/image/qcow2-marker";
import { tempDir } from "../support/tmp";

const host = {
  address: "hv1.example.com",
  user: "root",
  privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEYBODY\n-----END OPENSSH PRIVATE KEY-----",
  passphrase: "SECRETPASSPHRASE",
};
const unreachable = {
  run: async () => {
    throw new Error("connect ECONNREFUSED");
  },
  describe: () => ({ label: "root@hv1.example.com", identity: "x" }),
} as unknown as HostAccess;
const noSuch = (code: string) => new LibvirtError({ code: ErrorCode[code], domain: 0, message: code, level: 2 } as any, "virX");

/** A qcow2 header's first bytes, with pulumi-kvm's identity when `marker` is given. */
function qcow2Head(marker?: string): Buffer {
  const h = Buffer.alloc(4096);
  h.writeUInt32BE(0x514649fb, 0);
  h.writeUInt32BE(3, 4);
  h.writeUInt32BE(16, 20);
  h.writeUInt32BE(104, 100);
  return marker ? withMarker(h, marker) : h;
}

const MARKER = "5f0c2a8e-3b7d-4c1e-9a2b-6d4e8f0a1b2c";
const UUID = "0b5b6a7e1a2b4c3d9e8f001122334455";

/** A host where one volume, one domain, one pool and one network exist, recording what was removed. */
function hostWith(o: { volKey?: string; volMarker?: string; volMtime?: string; volHead?: Buffer; domUuid?: string; marked?: boolean; objectUuid?: string }) {
  const removed: string[] = [];
  const missing = (code: string) => {
    throw noSuch(code);
  };
  const lv = {
    lookupPool: async (name: string) =>
      name === "default"
        ? { name, uuid: Buffer.alloc(16) }
        : o.objectUuid
          ? { name, uuid: Buffer.from(o.objectUuid, "hex") }
          : missing("VIR_ERR_NO_STORAGE_POOL"),
    lookupVolume: async (pool: { name: string }, name: string) => {
      if (!o.volKey) throw noSuch("VIR_ERR_NO_STORAGE_VOL");
      return { pool: pool.name, name, key: o.volKey };
    },
    downloadVolume: async function* (_v: unknown, opts?: { length?: bigint }) {
      const head = o.volHead ?? qcow2Head(o.volMarker);
      yield opts?.length ? head.subarray(0, Number(opts.length)) : head;
    },
    volumeXml: async () =>
      `<volume><name>v</name><capacity unit='bytes'>4096</capacity><target><timestamps><mtime>${o.volMtime ?? "1.000000001"}</mtime></timestamps></target></volume>`,
    deleteVolume: async (v: { name: string }) => {
      removed.push(`volume ${v.name}`);
    },
    lookupDomain: async (name: string) => {
      if (!o.domUuid) throw noSuch("VIR_ERR_NO_DOMAIN");
      return { name, uuid: Buffer.from(o.domUuid, "hex"), id: -1 };
    },
    domainMetadata: async () => {
      if (!o.marked) throw noSuch("VIR_ERR_NO_DOMAIN_METADATA");
      return "<resource/>";
    },
    domainState: async () => ({ state: 5, reason: 0 }),
    destroyDomain: async () => undefined,
    undefineDomain: async (d: { name: string }) => {
      removed.push(`domain ${d.name}`);
    },
    poolIsActive: async () => true,
    listVolumes: async () => [],
    listDomains: async () => [],
    stopPool: async () => undefined,
    deletePoolStorage: async () => undefined,
    undefinePool: async (p: { name: string }) => {
      removed.push(`pool ${p.name}`);
    },
    lookupNetwork: async (name: string) => (o.objectUuid ? { name, uuid: Buffer.from(o.objectUuid, "hex") } : missing("VIR_ERR_NO_NETWORK")),
    networkIsActive: async () => false,
    undefineNetwork: async (n: { name: string }) => {
      removed.push(`network ${n.name}`);
    },
  };
  return { lv: lv as any, removed };
}

describe("leftover journal", () => {
  const dir = tempDir("journal-");
  const file = path.join(dir, "leftovers.json");
  const warnings: string[] = [];
  before(() => {
    process.env.PULUMI_KVM_JOURNAL = file;
    setLogSink((line) => warnings.push(line));
  });
  after(() => {
    delete process.env.PULUMI_KVM_JOURNAL;
    setLogSink(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    fs.rmSync(file, { force: true });
    warnings.length = 0;
  });

  it("holds no credentials and is readable by this user only, also over a file that was world-readable", async () => {
    fs.writeFileSync(file, "[]", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "v1", id: MARKER }, 0);
    const text = fs.readFileSync(file, "utf8");
    assert.doesNotMatch(text, /SECRET|PRIVATE KEY/);
    assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepStrictEqual(
      JSON.parse(text).map((e: any) => [e.kind, e.name, e.id]),
      [["volume", "v1", MARKER]],
    );
    assert.ok(await isJournalled(hostWith({ volKey: "/p/v1", volMarker: MARKER }).lv, host, "volume", "v1", "default"));
  });

  it("loses no entry when creates fail while another operation clears the journal", async () => {
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "old", id: MARKER }, 0);
    // the next operation removes "old" slowly, while ten other creates fail
    const { lv } = hostWith({ volKey: "/p/old", volMarker: MARKER });
    const slow = {
      ...lv,
      deleteVolume: async () => {
        await new Promise((r) => setTimeout(r, 200));
      },
    };
    const clearing = clearLeftovers(host, slow);
    await new Promise((r) => setTimeout(r, 20));
    await Promise.all([clearing, ...Array.from({ length: 10 }, (_, i) => rollback(unreachable, { host, kind: "volume", pool: "default", name: `p${i}` }, 0))]);
    assert.deepStrictEqual(
      JSON.parse(fs.readFileSync(file, "utf8"))
        .map((e: any) => e.name)
        .sort(),
      Array.from({ length: 10 }, (_, i) => `p${i}`).sort(),
    );
  });

  it("is cleared by the next operation on the host with other credentials (a rotated key)", async () => {
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "rot", id: MARKER }, 0);
    const { lv, removed } = hostWith({ volKey: "/p/rot", volMarker: MARKER });
    await clearLeftovers({ address: "hv1.example.com", user: "root", privateKeyPath: "/rotated/key" }, lv);
    assert.deepStrictEqual(removed, ["volume rot"]);
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), []);
  });

  it("removes a volume only if the identity in its header is the one made; with none to compare it is left alone", async () => {
    const other = hostWith({ volKey: "/p/v", volMarker: "11111111-2222-4333-8444-555555555555" });
    assert.strictEqual(await removeLeftover(other.lv, { kind: "volume", pool: "default", name: "v", id: MARKER }, "hv1"), "other");
    const unmarked = hostWith({ volKey: "/p/v" });
    assert.strictEqual(
      await removeLeftover(unmarked.lv, { kind: "volume", pool: "default", name: "v", id: MARKER }, "hv1"),
      "unproven",
      "no marker at all: ours before its marker was written, or another's",
    );
    assert.strictEqual(await removeLeftover(unmarked.lv, { kind: "volume", pool: "default", name: "v" }, "hv1"), "unproven", "a name alone proves nothing");
    assert.deepStrictEqual([other.removed, unmarked.removed], [[], []]);
    const same = hostWith({ volKey: "/p/v", volMarker: MARKER });
    assert.strictEqual(await removeLeftover(same.lv, { kind: "volume", pool: "default", name: "v", id: MARKER }, "hv1"), "removed");
    assert.deepStrictEqual(same.removed, ["volume v"]);
  });

  it("removes a domain only if it has the UUID made and pulumi-kvm's ownership marker", async () => {
    const otherUuid = hostWith({ domUuid: "ff".repeat(16), marked: true });
    assert.strictEqual(await removeLeftover(otherUuid.lv, { kind: "domain", name: "vm", id: UUID }, "hv1"), "other");
    const unmarked = hostWith({ domUuid: UUID, marked: false });
    assert.strictEqual(await removeLeftover(unmarked.lv, { kind: "domain", name: "vm", id: UUID }, "hv1"), "other");
    const ours = hostWith({ domUuid: UUID, marked: true });
    assert.strictEqual(await removeLeftover(ours.lv, { kind: "domain", name: "vm" }, "hv1"), "unproven");
    assert.strictEqual(await removeLeftover(ours.lv, { kind: "domain", name: "vm", id: UUID }, "hv1"), "removed");
    assert.deepStrictEqual([otherUuid.removed, unmarked.removed, ours.removed], [[], [], ["domain vm"]]);
  });

  it("removes a pool or a network only if it has the UUID made", async () => {
    for (const kind of ["pool", "network"] as const) {
      const other = hostWith({ objectUuid: "ff".repeat(16) });
      assert.strictEqual(await removeLeftover(other.lv, { kind, name: "x", id: UUID }, "hv1"), "other");
      assert.strictEqual(await removeLeftover(other.lv, { kind, name: "x" }, "hv1"), "unproven");
      const ours = hostWith({ objectUuid: UUID });
      assert.strictEqual(await removeLeftover(ours.lv, { kind, name: "x", id: UUID }, "hv1"), "removed");
      assert.deepStrictEqual([other.removed, ours.removed], [[], [`${kind} x`]]);
    }
  });
  const journal = () => JSON.parse(fs.readFileSync(file, "utf8")) as { name: string; pid?: number; id?: string; key?: string }[];
  /** A pid that no process has any more. */
  const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid;

  it("journals an object with its identity before the call that makes it, as this process's, and forgets it once the create is kept", async () => {
    const making = new Making(unreachable, host, 0);
    let during: ReturnType<typeof journal> = [];
    await making.make({ kind: "volume", pool: "default", name: "mk", id: MARKER }, async () => {
      during = journal();
      return { key: "/p/mk" };
    });
    assert.deepStrictEqual(
      during.map((e) => [e.name, e.pid, e.id]),
      [["mk", process.pid, MARKER]],
      "journalled before the call, with this pid and the identity",
    );
    const { lv, removed } = hostWith({ volKey: "/p/mk", volMarker: MARKER });
    assert.ok(!(await isJournalled(lv, host, "volume", "mk", "default")), "a create in flight is no leftover: its name is not free");
    await clearLeftovers(host, lv);
    assert.deepStrictEqual(removed, [], "the next operation leaves a create in flight alone");
    await making.kept();
    assert.deepStrictEqual(journal(), []);
  });

  it("forgets an object libvirt refused to make; one whose call the link cut off is undone when it proves to be the one made", async () => {
    const making = new Making(unreachable, host, 0);
    await assert.rejects(
      making.make({ kind: "volume", pool: "default", name: "refused" }, async () => {
        throw noSuch("VIR_ERR_STORAGE_VOL_EXIST");
      }),
    );
    assert.deepStrictEqual(journal(), [], "libvirt answered: nothing was made");
    await assert.rejects(
      making.make({ kind: "volume", pool: "default", name: "cut", id: MARKER }, async () => {
        throw new RpcTransportError("link reset");
      }),
    );
    const { lv, removed } = hostWith({ volKey: "/p/cut", volMarker: MARKER });
    const reachable = { run: (_h: unknown, fn: (l: unknown) => unknown) => fn(lv), describe: unreachable.describe } as unknown as HostAccess;
    const cutOff = new Making(reachable, host);
    await assert.rejects(
      cutOff.make({ kind: "volume", pool: "default", name: "cut", id: MARKER }, async () => {
        throw new RpcTransportError("link reset");
      }),
    );
    await cutOff.undo();
    assert.deepStrictEqual(removed, ["volume cut"], "the outcome was unknown: the volume of that name carries the identity, so it is removed");
    assert.deepStrictEqual(
      journal().map((e) => e.name),
      ["cut"],
      "only the first create's entry is left (its undo never ran)",
    );
    // without an identity chosen beforehand, what has the name now is not proven to be it
    const unproven = new Making(reachable, host);
    await assert.rejects(
      unproven.make({ kind: "volume", pool: "default", name: "cut2" }, async () => {
        throw new RpcTransportError("link reset");
      }),
    );
    await unproven.undo();
    assert.deepStrictEqual(removed, ["volume cut"]);
    assert.match(warnings.join("\n"), /nothing proves that the volume of that name is the one it made.*virsh vol-delete --pool default cut2/);
  });

  it("proves a volume by its mtime once made, never by its key: a same-named volume made since is left alone, even by the process that made the first", async () => {
    const made = hostWith({ volKey: "/p/up", volMtime: "1700000000.000000001" });
    const reachable = (lv: unknown) => ({ run: (_h: unknown, fn: (l: unknown) => unknown) => fn(lv), describe: unreachable.describe }) as unknown as HostAccess;
    const making = new Making(reachable(made.lv), host);
    await making.make(
      { kind: "volume", pool: "default", name: "up" },
      async () => ({ key: "/p/up" }),
      async () => "mtime:1700000000.000000001",
    );
    assert.deepStrictEqual(
      journal().map((e) => e.id),
      ["mtime:1700000000.000000001"],
      "the proof is journalled as soon as it is known",
    );
    await making.undo();
    assert.deepStrictEqual(made.removed, ["volume up"]);
    // ours vanished and someone made a volume of the same name (the same key: the same path)
    const stranger = hostWith({ volKey: "/p/up2", volMtime: "1700000099.000000002" });
    const again = new Making(reachable(stranger.lv), host);
    await again.make(
      { kind: "volume", pool: "default", name: "up2" },
      async () => ({ key: "/p/up2" }),
      async () => "mtime:1700000000.000000001",
    );
    await again.undo();
    assert.deepStrictEqual(stranger.removed, [], "the stranger's volume under the same key was removed");
    assert.match(
      warnings.join("\n"),
      /volume default\/up2 a failed create left was removed since; the volume of that name now is someone else's and was left alone/,
    );
  });

  it("proves a qcow2 volume whose marker is not written yet by its mtime, and by its marker once written", async () => {
    const fresh = hostWith({ volKey: "/p/q", volMtime: "7.7" });
    const reachable = { run: (_h: unknown, fn: (l: unknown) => unknown) => fn(fresh.lv), describe: unreachable.describe } as unknown as HostAccess;
    const making = new Making(reachable, host);
    await making.make(
      { kind: "volume", pool: "default", name: "q", id: MARKER },
      async () => ({ key: "/p/q" }),
      async () => "mtime:7.7",
    );
    assert.deepStrictEqual(
      journal().map((e) => e.id),
      [`${MARKER}|mtime:7.7`],
    );
    await making.undo();
    assert.deepStrictEqual(fresh.removed, ["volume q"], "the volume without its marker yet was left");
    const marked = hostWith({ volKey: "/p/q", volMarker: MARKER, volMtime: "8.8" });
    assert.strictEqual(await removeLeftover(marked.lv, { kind: "volume", pool: "default", name: "q", id: `${MARKER}|mtime:7.7` }, "h"), "removed");
    const stranger = hostWith({ volKey: "/p/q", volMtime: "9.9" });
    assert.strictEqual(await removeLeftover(stranger.lv, { kind: "volume", pool: "default", name: "q", id: `${MARKER}|mtime:7.7` }, "h"), "other");
  });

  it("proves an Image mid-upload by the mark in its first bytes, which any later process can read; another mark is someone else's", async () => {
    const { headMark } = await import("../../provider/kinds/volume/identity");
    const place = JSON.stringify([host.address, 22, host.user, "", ""]);
    const entry = (name: string) => ({ kind: "volume", pool: "default", name, id: "head:aa11", place, pid: deadPid(), token: name });
    fs.writeFileSync(file, JSON.stringify([entry("half")]));
    const half = hostWith({ volKey: "/p/half", volHead: Buffer.concat([headMark("aa11"), Buffer.alloc(4000)]) });
    await clearLeftovers(host, half.lv);
    assert.deepStrictEqual(half.removed, ["volume half"]);
    fs.writeFileSync(file, JSON.stringify([entry("theirs")]));
    const theirs = hostWith({ volKey: "/p/theirs", volHead: Buffer.concat([headMark("bb22"), Buffer.alloc(4000)]) });
    await clearLeftovers(host, theirs.lv);
    assert.deepStrictEqual(theirs.removed, []);
    assert.deepStrictEqual(journal(), []);
  });

  it("calls a volume with no mark at all where one was to be unproven, not someone else's: left alone, with the command that removes it", async () => {
    warnings.length = 0;
    // the link broke between the create and its first write: a blank head, no mtime journalled
    const blank = hostWith({ volKey: "/p/blank", volHead: Buffer.alloc(4096) });
    assert.strictEqual(await removeLeftover(blank.lv, { kind: "volume", pool: "default", name: "blank", id: "head:aa11" }, "h"), "unproven");
    // a qcow2 without a marker yet, its mtime not known either
    const bare = hostWith({ volKey: "/p/bare" });
    assert.strictEqual(await removeLeftover(bare.lv, { kind: "volume", pool: "default", name: "bare", id: MARKER }, "h"), "unproven");
    // the mtime journalled says more: a blank volume made since is someone else's
    const since = hostWith({ volKey: "/p/since", volHead: Buffer.alloc(4096), volMtime: "9.9" });
    assert.strictEqual(await removeLeftover(since.lv, { kind: "volume", pool: "default", name: "since", id: "head:aa11|mtime:7.7" }, "h"), "other");
    assert.deepStrictEqual([...blank.removed, ...bare.removed, ...since.removed], []);
    const place = JSON.stringify([host.address, 22, host.user, "", ""]);
    fs.writeFileSync(file, JSON.stringify([{ kind: "volume", pool: "default", name: "blank", id: "head:aa11", place, pid: deadPid(), token: "t" }]));
    await clearLeftovers(host, blank.lv);
    assert.match(warnings.join("\n"), /nothing proves that the volume of that name is the one it made.*virsh vol-delete --pool default blank/);
    assert.deepStrictEqual(journal(), [], "reported once, not at every operation");
  });

  it("keeps trying a host it cannot reach for a while: a restart of libvirtd or sshd does not leave the undo to the journal", async () => {
    const { lv, removed } = hostWith({ volKey: "/p/restart", volMtime: "5.5" });
    let refusals = 0;
    const restarting = {
      run: async (_h: unknown, fn: (l: unknown) => unknown) => {
        if (refusals++ < 3) throw new Error("connect ECONNREFUSED");
        return fn(lv);
      },
      describe: unreachable.describe,
    } as unknown as HostAccess;
    const making = new Making(restarting, host, 10_000);
    await making.make(
      { kind: "volume", pool: "default", name: "restart" },
      async () => ({ key: "/p/restart" }),
      async () => "mtime:5.5",
    );
    const started = Date.now();
    await making.undo();
    assert.deepStrictEqual([refusals, removed], [4, ["volume restart"]], "removed on the fourth attempt, proven by its mtime");
    assert.ok(Date.now() - started < 10_000, "within its patience");
    assert.deepStrictEqual(journal(), [], "nothing left for the next operation");
  });

  it("journals at once what the host refuses to remove for good (access denied): no retry can change that", async () => {
    let attempts = 0;
    const denying = {
      run: async () => {
        attempts++;
        throw new LibvirtError({ code: ErrorCode["VIR_ERR_ACCESS_DENIED"], domain: 0, message: "access denied", level: 2 } as any, "virStorageVolDelete");
      },
      describe: unreachable.describe,
    } as unknown as HostAccess;
    const making = new Making(denying, host, 10_000);
    await making.make({ kind: "volume", pool: "default", name: "denied" }, async () => ({ key: "/p/denied" }));
    await making.undo();
    assert.strictEqual(attempts, 1, "no retries");
    assert.deepStrictEqual(
      journal().map((e) => e.name),
      ["denied"],
    );
    assert.match(warnings.join("\n"), /could not remove volume denied .*access denied/);
  });

  it("keeps what it cannot undo for the next operation; a dead process's leftover goes when proven, and is only reported when not", async () => {
    const making = new Making(unreachable, host, 0);
    await making.make({ kind: "volume", pool: "default", name: "kept", id: MARKER }, async () => ({ key: "/p/kept" }));
    await making.undo();
    assert.deepStrictEqual(
      journal().map((e) => [e.name, e.pid, e.id]),
      [["kept", undefined, MARKER]],
      "nobody makes it now: a leftover, with its identity",
    );
    const place = (journal()[0] as any).place;
    fs.writeFileSync(file, JSON.stringify([{ kind: "volume", pool: "default", name: "orphan", id: MARKER, place, pid: deadPid(), token: "t" }]));
    const proven = hostWith({ volKey: "/p/orphan", volMarker: MARKER });
    assert.ok(
      await isJournalled(proven.lv, host, "volume", "orphan", "default"),
      "its process is gone and the volume proves to be it: the name counts as free",
    );
    assert.ok(
      !(await isJournalled(hostWith({ volKey: "/p/orphan" }).lv, host, "volume", "orphan", "default")),
      "someone else's volume of that name: the name is taken",
    );
    await clearLeftovers(host, proven.lv);
    assert.deepStrictEqual(proven.removed, ["volume orphan"]);
    assert.deepStrictEqual(journal(), []);
    // a create killed before it had an identity: reported, never deleted
    fs.writeFileSync(file, JSON.stringify([{ kind: "volume", pool: "default", name: "blind", place, pid: deadPid(), token: "u" }]));
    const blind = hostWith({ volKey: "/p/blind" });
    assert.ok(!(await isJournalled(blind.lv, host, "volume", "blind", "default")));
    await clearLeftovers(host, blind.lv);
    assert.deepStrictEqual(blind.removed, []);
    assert.match(warnings.join("\n"), /volume default\/blind.*left alone.*virsh vol-delete --pool default blind/);
    assert.deepStrictEqual(journal(), [], "reported once, then forgotten");
  });

  it("is written through a new temp file of its own (a planted link is not followed) and trusts only a regular file of this user's", async () => {
    const victim = path.join(dir, "victim");
    fs.writeFileSync(victim, "untouched");
    // the temp name an earlier version used, planted as a link
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`);
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "v2", id: MARKER }, 0);
    assert.strictEqual(fs.readFileSync(victim, "utf8"), "untouched");
    assert.ok(fs.lstatSync(file).isFile());
    assert.deepStrictEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith(".tmp") && !fs.lstatSync(path.join(dir, f)).isSymbolicLink()),
      [],
    );
    // a journal that is a link, or another user's file, is not read
    fs.rmSync(file);
    fs.writeFileSync(
      victim,
      JSON.stringify([{ kind: "volume", pool: "default", name: "v3", id: MARKER, place: JSON.stringify([host.address, 22, host.user, "", ""]) }]),
    );
    fs.symlinkSync(victim, file);
    const v3 = hostWith({ volKey: "/p/v3", volMarker: MARKER }).lv;
    assert.ok(!(await isJournalled(v3, host, "volume", "v3", "default")), "a journal behind a link was trusted");
    fs.rmSync(file);
    // another user's file (the tests run as root, which may give a file away)
    fs.copyFileSync(victim, file);
    assert.ok(await isJournalled(v3, host, "volume", "v3", "default"), "this user's own journal is read");
    fs.chownSync(file, 65534, 65534);
    assert.ok(!(await isJournalled(v3, host, "volume", "v3", "default")), "another user's journal was trusted");
    fs.rmSync(`${file}.${process.pid}.tmp`);
  });

  it("refuses a directory its group or others can write to, naming PULUMI_KVM_JOURNAL and the fix", async () => {
    for (const mode of [0o1777, 0o770]) {
      const shared = tempDir("journal-shared-");
      fs.chmodSync(shared, mode);
      process.env.PULUMI_KVM_JOURNAL = path.join(shared, "leftovers.json");
      try {
        const making = new Making(unreachable, host, 0);
        await assert.rejects(
          making.make({ kind: "volume", pool: "default", name: "x" }, async () => ({ key: "/p/x" })),
          new RegExp(`${shared} can be written by other users \\(mode ${(mode & 0o777).toString(8)}\\); run chmod go-w .*, or set PULUMI_KVM_JOURNAL`),
        );
        assert.ok(!fs.existsSync(path.join(shared, "leftovers.json")));
      } finally {
        process.env.PULUMI_KVM_JOURNAL = file;
        fs.rmSync(shared, { recursive: true, force: true });
      }
    }
  });

  it("never breaks a lock whose holder lives, however old; breaks a dead holder's at once", async () => {
    const lock = `${file}.lock`;
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 20000)"], { stdio: "ignore" });
    try {
      fs.writeFileSync(lock, String(holder.pid));
      const old = new Date(Date.now() - 10 * 60_000);
      fs.utimesSync(lock, old, old);
      let done = false;
      const change = rollback(unreachable, { host, kind: "volume", pool: "default", name: "w", id: MARKER }, 0).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(!done, "a lock ten minutes old was broken while its holder runs");
      holder.kill();
      await new Promise((r) => holder.once("exit", r));
      await change;
      assert.deepStrictEqual(
        journal().map((e) => e.name),
        ["w"],
      );
    } finally {
      holder.kill();
      fs.rmSync(lock, { force: true });
    }
    fs.writeFileSync(lock, String(deadPid()));
    const started = Date.now();
    await rollback(unreachable, { host, kind: "volume", pool: "default", name: "x", id: MARKER }, 0);
    assert.ok(Date.now() - started < 1000, "a dead holder's lock was waited on");
  });

  it("is not locked while leftovers are removed from a host: other creates journal meanwhile", async () => {
    const place = JSON.stringify([host.address, 22, host.user, "", ""]);
    fs.writeFileSync(file, JSON.stringify([{ kind: "volume", pool: "default", name: "slow", id: MARKER, place, pid: deadPid(), token: "s" }]));
    const slow = hostWith({ volKey: "/p/slow", volMarker: MARKER });
    let release: () => void = () => undefined;
    const deleting = new Promise<void>((r) => (release = r));
    const deleteVolume = slow.lv.deleteVolume;
    slow.lv.deleteVolume = async (v: { name: string }) => {
      await deleting;
      return deleteVolume(v);
    };
    const clearing = clearLeftovers(host, slow.lv);
    await new Promise((r) => setTimeout(r, 100));
    const making = new Making(unreachable, host, 0);
    await making.make({ kind: "volume", pool: "default", name: "meanwhile", id: MARKER }, async () => ({ key: "/p/m" }));
    assert.deepStrictEqual(
      journal().map((e) => e.name),
      ["slow", "meanwhile"],
      "journalled while the removal is under way",
    );
    release();
    await clearing;
    assert.deepStrictEqual(slow.removed, ["volume slow"]);
    assert.deepStrictEqual(
      journal().map((e) => e.name),
      ["meanwhile"],
    );
    await making.kept();
  });
});

describe("the journal beside an earlier version's", () => {
  // versions before 0.6.1 journal in leftovers.json and, before a create, remove every entry of it for their host
  const dir = tempDir("journal-earlier-");
  const file = path.join(dir, "journal.json");
  const earlier = path.join(dir, "leftovers.json");
  const place = JSON.stringify([host.address, 22, host.user, "", ""]);
  const read = (f: string) => (fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, "utf8")) as { name: string; pid?: number }[]).map((e) => e.name) : []);
  before(() => {
    process.env.PULUMI_KVM_JOURNAL = file;
    setLogSink(() => undefined);
  });
  after(() => {
    delete process.env.PULUMI_KVM_JOURNAL;
    setLogSink(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("journals a create in flight where an earlier version never looks, and removes that version's leftovers, leaving its creates in flight to it", async () => {
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    fs.writeFileSync(
      earlier,
      JSON.stringify([
        { kind: "volume", pool: "default", name: "theirs-left", id: MARKER, place },
        { kind: "volume", pool: "default", name: "theirs-dead", id: MARKER, place, pid: deadPid, token: "d" },
        { kind: "volume", pool: "default", name: "theirs-in-flight", id: MARKER, place, pid: process.ppid, token: "f" },
      ]),
    );
    const making = new Making(unreachable, host, 0);
    await making.make({ kind: "volume", pool: "default", name: "ours", id: MARKER }, async () => {
      assert.deepStrictEqual(read(file).sort(), ["ours", "theirs-dead", "theirs-left"], "ours in flight here, with the earlier version's leftovers moved in");
      assert.deepStrictEqual(read(earlier), ["theirs-in-flight"], "an earlier version sweeping its file finds nothing of ours");
      return { key: "/p/ours" };
    });
    await making.kept();
    const proven = hostWith({ volKey: "/p/theirs-left", volMarker: MARKER });
    await clearLeftovers(host, proven.lv);
    assert.ok(proven.removed.includes("volume theirs-left"), "an earlier version's leftover is still removed when proven");
    assert.ok(!read(file).includes("ours"), "ours forgotten once kept");
    assert.deepStrictEqual(read(earlier), ["theirs-in-flight"], "its create in flight stays where its process forgets it");
  });
});
