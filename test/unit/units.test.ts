// Sizes and durations as users write them.
import * as assert from "assert";
import { parseDuration, parseSize, sizeInput } from "../../provider/units";

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
});
