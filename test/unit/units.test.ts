// Sizes and durations as users write them.
import * as assert from "assert";
import { parseDuration, parseSize } from "../../provider/units";

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
});
