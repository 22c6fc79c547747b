// A preview runs before anything is made: a pool or network the same deployment makes
// (its check passed in this process) is not on the host yet, so the checks of what goes
// into it ask the host about the host only, while any other pool or network is still checked.
import * as assert from "assert";
import { checkHostHealth, planObject } from "../../provider/resources/host-check";
import { Failures } from "../../provider/resources/input-checks";
import type { ResourceContext } from "../../provider/resources/context";

describe("pools and networks the deployment makes", () => {
  const asked: { pool?: string; network?: string }[] = [];
  const ctx = {
    pool: {},
    health: async (_host: unknown, opts: { pool?: string; network?: string }) => {
      asked.push({ pool: opts.pool, network: opts.network });
      return { ok: true };
    },
  } as unknown as ResourceContext;
  const host = { address: "hv-planned", user: "root" };

  it("are not asked of the host in a check, on that host only; others are", async () => {
    const before = process.env.PULUMI_KVM_SKIP_HOST_CHECK;
    delete process.env.PULUMI_KVM_SKIP_HOST_CHECK;
    try {
      const failures: Failures = [];
      await checkHostHealth(ctx, failures, host, "fast", "lan");
      planObject(host, "pool", "fast");
      planObject(host, "network", "lan");
      await checkHostHealth(ctx, failures, host, "fast", "lan");
      await checkHostHealth(ctx, failures, host, "default", "other");
      await checkHostHealth(ctx, failures, { ...host, address: "hv-other" }, "fast", "lan");
      assert.deepStrictEqual(failures, []);
      assert.deepStrictEqual(asked, [
        { pool: "fast", network: "lan" },
        { pool: undefined, network: undefined },
        { pool: "default", network: "other" },
        { pool: "fast", network: "lan" },
      ]);
    } finally {
      if (before !== undefined) process.env.PULUMI_KVM_SKIP_HOST_CHECK = before;
    }
  });
});
