// Inputs a kind does not declare are refused by check, each with the declared one it most
// likely meant; what the engine and the SDK add is not an input.
import * as assert from "assert";
import { DECLARATIONS } from "../../provider/kinds";
import { closest, editDistance, undeclaredInputs } from "../../provider/resources/undeclared";

const host = { address: "hv1", user: "root" };

describe("undeclared inputs", () => {
  it("measures edit distance by insertions, deletions, substitutions and swaps of neighbours", () => {
    assert.deepStrictEqual(
      [
        editDistance("memory", "memory"),
        editDistance("memroy", "memory"),
        editDistance("", "abc"),
        editDistance("vcpus", "vcpu"),
        editDistance("kitten", "sitting"),
      ],
      [0, 1, 3, 1, 3],
    );
  });

  it("suggests the nearest declared name only when it is near enough to be a typo", () => {
    assert.strictEqual(closest("memroy", ["vcpu", "memory", "maxMemory"]), "memory");
    assert.strictEqual(closest("Autostart", ["autostart", "adopt"]), "autostart", "case does not count");
    assert.strictEqual(closest("tpm", ["type", "vcpu", "memory"]), undefined, "a short name far from any: no guess");
  });

  it("accepts every declared input of every kind, the SDK's own hints, the kind and the dynamic provider", () => {
    for (const decl of Object.values(DECLARATIONS)) {
      const news = { ...Object.fromEntries(Object.keys(decl.properties).map((k) => [k, undefined])), kvmKind: decl.kind, __provider: "serialized" };
      assert.deepStrictEqual(undeclaredInputs(decl, { ...news, host, resourceName: "r" }), [], decl.kind);
    }
  });

  it("refuses a misspelt input naming it, the one it likely meant and where the inputs are listed", () => {
    const [f, ...rest] = undeclaredInputs(DECLARATIONS.Domain, { host, memroy: "1GiB" });
    assert.deepStrictEqual(rest, []);
    assert.strictEqual(f.property, "memroy");
    assert.match(f.reason, /^memroy: a Domain has no input "memroy"\. Did you mean "memory"\? Its inputs are host, name, type, vcpu, memory/);
    assert.doesNotMatch(f.reason, /resourceName/, "the SDK's hints are not listed to users");
  });

  it("refuses fields of structured values by their object type, in lists too, with their path", () => {
    const failures = undeclaredInputs(DECLARATIONS.Domain, {
      host: { ...host, prot: 22 },
      disks: [{ volume: "a" }, { volume: "b", formt: "raw" }],
      networkInterfaces: [{ netwrok: "default" }],
      waitForIp: { timout: "5m" },
    });
    assert.deepStrictEqual(
      failures.map((f) => [f.property, /Did you mean "([^"]+)"/.exec(f.reason)?.[1]]),
      [
        ["host.prot", "port"],
        ["disks[1].formt", "format"],
        ["networkInterfaces[0].netwrok", "network"],
        ["waitForIp.timout", "timeout"],
      ],
    );
  });

  it("leaves values that are not objects of the type to the kind's own check (waitForIp: true, a disk given as a string)", () => {
    assert.deepStrictEqual(undeclaredInputs(DECLARATIONS.Domain, { host, waitForIp: true, disks: ["vol"] }), []);
  });

  it("skips inputs given as undefined (a TypeScript class's unset options)", () => {
    assert.deepStrictEqual(undeclaredInputs(DECLARATIONS.Network, { host, mode: "nat", nonsense: undefined }), []);
  });
});
