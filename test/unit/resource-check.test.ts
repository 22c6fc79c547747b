// `check` with the layers below passed in (resources/context.ts): what it does with a
// health verdict and with names already on the host, without a host. The collision
// check's memory of the stack's own names is what lets a replacement, which Pulumi
// checks again with no olds, keep its name.
import * as assert from "assert";
import { HostHealth } from "../../provider/health/check";
import { Libvirt } from "../../provider/libvirt/api";
import { ResourceContext } from "../../provider/resources/context";
import { setLogSink } from "../../provider/log";
import { createVolumeProvider, VolumeInputs } from "../../provider/kinds/volume/lifecycle";

const host = { address: "hv1.example.com", user: "root", privateKeyPath: "/nonexistent/key" };

/** A host where every pool and volume asked about exists. */
const everythingExists = {
  lookupPool: async (name: string) => ({ name, uuid: Buffer.alloc(16) }),
  lookupVolume: async (pool: { name: string }, name: string) => ({ pool: pool.name, name, key: `/p/${name}` }),
} as unknown as Libvirt;

function context(verdict: Partial<HostHealth> = {}): { ctx: ResourceContext; probes: number } {
  const state = { probes: 0 };
  const ctx: ResourceContext = {
    pool: {
      run: async () => {
        throw new Error("check must not run operations");
      },
      probe: async (_h, fn) => {
        state.probes++;
        return fn(everythingExists);
      },
      describe: () => ({ label: "root@hv1.example.com", identity: "hv1" }),
      warnEarly: () => undefined,
    },
    health: async () => ({
      host: "root@hv1.example.com",
      ok: true,
      latencyMs: 1,
      pool: { name: "default", state: "running", capacityBytes: 1e12, allocationBytes: 0, availableBytes: 1e12 },
      ...verdict,
    }),
  };
  return {
    ctx,
    get probes() {
      return state.probes;
    },
  };
}

describe("check with the host passed in", () => {
  it("reports a taken name of a new resource, naming the object, the host and the fix", async () => {
    const c = context();
    const r = await createVolumeProvider(c.ctx).check({} as never, { host, name: "web-disk", capacity: "1GiB" } as VolumeInputs);
    assert.strictEqual(c.probes, 1);
    assert.deepStrictEqual(
      r.failures.map((f) => f.property),
      ["name"],
    );
    assert.match(
      r.failures[0].reason,
      /volume "web-disk" in pool "default" already exists on root@hv1\.example\.com and is not part of this stack.*virsh vol-delete --pool default web-disk/,
    );
  });

  it("does not ask the host about the names the stack's own state holds, also when Pulumi re-checks a replacement with no olds", async () => {
    const c = context();
    const provider = createVolumeProvider(c.ctx);
    const news = { host, name: "db-disk", capacity: "1GiB" } as VolumeInputs;
    const olds = (await provider.check({} as never, news)).inputs;
    const before = c.probes;
    assert.deepStrictEqual((await provider.check(olds as never, { ...news, capacity: "512MiB" })).failures, []);
    assert.deepStrictEqual((await provider.check({} as never, { ...news, capacity: "512MiB" })).failures, [], "the replacement keeps its name");
    assert.strictEqual(c.probes, before, "no probe for the stack's own name");
  });

  it("remembers the names of a dependent Pulumi only diffed before checking it as new (delete-before-replace)", async () => {
    const c = context();
    const provider = createVolumeProvider(c.ctx);
    const recorded = {
      host,
      pool: "default",
      name: "dep-disk",
      kvmKind: "Volume",
      path: "/p/dep-disk",
      key: "/p/dep-disk",
      format: "qcow2",
      capacityBytes: 2 ** 30,
    } as const;
    await provider.diff(recorded.key, recorded, { ...recorded, baseImage: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" });
    const r = await provider.check({} as never, { host, name: "dep-disk", capacity: "1GiB" } as VolumeInputs);
    assert.deepStrictEqual(r.failures, []);
  });

  it("names the pool when the host's pool is inactive, and asks nothing more", async () => {
    const c = context({ ok: false, stage: "pool", error: 'storage pool "default" is inactive on root@hv1.example.com' });
    const r = await createVolumeProvider(c.ctx).check({} as never, { host, name: "x", capacity: "1GiB" } as VolumeInputs);
    assert.deepStrictEqual(
      r.failures.map((f) => f.property),
      ["pool"],
    );
    assert.match(r.failures[0].reason, /inactive.*\[stage: pool\]/);
    assert.strictEqual(c.probes, 0);
  });
  it("a host that gave no answer (tcp, SSH handshake, the probe's bound) fails no check: it warns once per host; a host that answered no fails it", async () => {
    const warnings: string[] = [];
    setLogSink((line, severity) => severity === "warning" && warnings.push(line));
    try {
      const check = (verdict: Partial<HostHealth>, address = host.address) => {
        const { ctx } = context({ ok: false, ...verdict });
        // what the check asks beyond health meets the same host, and gets no answer either
        ctx.pool.probe = async () => {
          throw new Error(verdict.error);
        };
        return createVolumeProvider(ctx).check({} as never, { host: { ...host, address }, name: "x", capacity: "1GiB" } as VolumeInputs);
      };
      for (const stage of ["tcp", "ssh-handshake", "timeout"] as const) {
        const r = await check({ stage, class: stage === "tcp" ? "unreachable" : "timeout", error: `no answer at ${stage}` }, `${stage}.example.com`);
        assert.deepStrictEqual(r.failures, [], stage);
      }
      await check({ stage: "tcp", class: "unreachable", error: "no answer at tcp" }, "tcp.example.com");
      assert.deepStrictEqual(
        warnings.map((w) => /root@(\S+) did not answer/.exec(w)?.[1]),
        ["tcp.example.com", "ssh-handshake.example.com", "timeout.example.com"],
        "one warning per host, however many of its resources are checked",
      );
      for (const verdict of [
        { stage: "tcp", class: "permanent", error: "the name does not resolve" },
        { stage: "ssh-handshake", class: "permanent", error: "did not accept the key" },
        { stage: "libvirt-connect", class: "unreachable", error: "cannot open libvirt's socket" },
      ] as const) {
        const r = await check(verdict, "answered.example.com");
        assert.deepStrictEqual(
          r.failures.map((f) => f.property),
          ["host"],
          verdict.error,
        );
      }
    } finally {
      setLogSink(undefined);
    }
  });
});
