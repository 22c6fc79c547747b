// The chaos run's short variant for CI (`npm run chaos` is the long one, with figures in
// bench/RESULTS.md): one cycle of up → update → destroy through the real CLI, a fault on
// each stage's first two attempts, another cycle or two only while a kind has not come up
// (a fault can fire after its stage ended), and no object leaked or lost, no drift, no
// unclear error.
import * as assert from "assert";
import { FAULTS, runChaos, unclearErrors } from "../support/chaos";
import { labEnv } from "../support/lab";

describe("chaos (short run)", function () {
  this.timeout(1_800_000);

  it("tells a clear error (it names the host) from one that is not", () => {
    const out =
      "Diagnostics:\n  pulumi-nodejs:dynamic/kvm:Volume (d):\n    error: root@127.0.0.1:40111: creating volume default/d: SSH link closed\n" +
      "  pulumi-nodejs:dynamic/kvm:Domain (v):\n    error: 2 errors occurred:\n    \t* root@127.0.0.1:40111: domain v got no ipv4 address\n    \t* something failed\n\n" +
      "  pulumi:pulumi:Stack (s):\n    error: update failed\n    error: TypeError: Cannot read properties of undefined\n";
    assert.deepStrictEqual(unclearErrors(out, false), ["something failed", "TypeError: Cannot read properties of undefined"]);
    // after a Ctrl-C, the program's own gRPC channel closing is Pulumi's, not the provider's
    assert.deepStrictEqual(unclearErrors("Diagnostics:\n  pulumi:pulumi:Stack (s):\n    error: Error: Channel has been shut down\n", true), []);
    assert.deepStrictEqual(unclearErrors("Diagnostics:\n  pulumi:pulumi:Stack (s):\n    error: Error: Channel has been shut down\n", false), [
      "Error: Channel has been shut down",
    ]);
  });

  it("a cycle with faults of every kind leaves nothing leaked or lost, and every error is clear", async () => {
    const lines: string[] = [];
    const f = await runChaos(labEnv(), {
      cycles: 1,
      extraCyclesForEveryKind: 2,
      maxMs: 25 * 60_000,
      perHost: 1,
      alwaysInject: true,
      faultyAttempts: 2,
      log: (l) => lines.push(l),
    });
    const report = `seed ${f.seed}\n${lines.join("\n")}`;
    assert.ok(f.cycles >= 1, report);
    for (const k of FAULTS) assert.ok(f.faults[k] >= 1, `a fault of kind "${k}" was injected\n${report}`);
    assert.deepStrictEqual(f.leaked, [], report);
    assert.deepStrictEqual(f.lost, [], report);
    assert.strictEqual(f.drifted, 0, report);
    assert.deepStrictEqual(f.unclear, [], report);
  });
});
