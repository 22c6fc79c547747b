// Sizes and durations as users write them.
import * as assert from "assert";
import { envSecondsMs, parseDuration, parseSize, sizeInput } from "../../provider/units";

describe("units", () => {
  it("reads durations, and refuses an empty one instead of taking it as zero", () => {
    assert.deepStrictEqual(parseDuration("1h30m"), { ms: 5_400_000 });
    assert.deepStrictEqual(parseDuration("0s"), { ms: 0 });
    assert.deepStrictEqual(parseDuration(90), { ms: 90_000 });
    for (const empty of ["", "   "]) assert.match((parseDuration(empty) as { error: string }).error, /empty string is not a duration/);
  });

  it("reads decimal and binary sizes", () => {
    assert.deepStrictEqual(parseSize("1.5GB"), { bytes: 1_500_000_000 });
    assert.deepStrictEqual(parseSize("20GiB"), { bytes: 20 * 2 ** 30 });
  });

  it("writes sizes as a program would, and reads them back to the same bytes", () => {
    for (const [bytes, written] of [
      [8 * 2 ** 20, "8MiB"],
      [20 * 2 ** 30, "20GiB"],
      [3 * 2 ** 40, "3TiB"],
      [1000001, 1000001],
    ] as const) {
      assert.strictEqual(sizeInput(bytes), written);
      assert.deepStrictEqual(parseSize(written), { bytes });
    }
  });

  it("reads a PULUMI_KVM_*_TIMEOUT bound in seconds, its default where unset or not a number in range; 0 only where no bound is allowed", () => {
    const name = "PULUMI_KVM_TEST_TIMEOUT";
    try {
      const cases: [string | undefined, boolean, number][] = [
        [undefined, false, 30_000],
        ["4", false, 4_000],
        ["0.5", false, 500],
        ["abc", false, 30_000],
        ["-1", false, 30_000],
        ["0", false, 30_000],
        ["0", true, 0],
      ];
      for (const [value, zeroAllowed, ms] of cases) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
        assert.strictEqual(envSecondsMs(name, 30, zeroAllowed), ms, `${value} (zero allowed: ${zeroAllowed})`);
      }
    } finally {
      delete process.env[name];
    }
  });
});
