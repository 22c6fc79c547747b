// The lookups' table (provider/resources/lookups.ts) against what derives from it or
// restates it: the SDK's result types, the schema's functions; and the pieces discover and
// getHost are made of (unique import names, libvirt's char[32] on the wire).
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { uniqueNames } from "../../cli/discover";
import { packageSchema } from "../../plugin/schema";
import { LOOKUPS } from "../../provider/resources/lookups";
import { decode, encode, fixedArray, int } from "../../provider/rpc/codec";

/** The members of each exported interface of sdk/lookups.ts. */
function sdkResults(): Map<string, string[]> {
  const file = path.join(__dirname, "../../../sdk/lookups.ts");
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out = new Map<string, string[]>();
  source.forEachChild((n) => {
    if (ts.isInterfaceDeclaration(n))
      out.set(
        n.name.text,
        n.members.map((m) => (m.name as ts.Identifier).text),
      );
  });
  return out;
}

describe("lookups", () => {
  it("the SDK's result types have exactly the results each lookup declares", () => {
    const sdk = sdkResults();
    for (const [name, lookup] of Object.entries(LOOKUPS)) {
      const type = `${name[0].toUpperCase()}${name.slice(1)}Result`;
      assert.deepStrictEqual(sdk.get(type)?.sort(), Object.keys(lookup.results).sort(), type);
    }
  });

  it("the schema has each lookup as kvm:index:<name>, host optional, its arguments and results typed", () => {
    const schema = packageSchema("1.0.0");
    assert.deepStrictEqual(
      Object.keys(schema.functions).sort(),
      Object.keys(LOOKUPS)
        .map((n) => `kvm:index:${n}`)
        .sort(),
    );
    const getVolume = schema.functions["kvm:index:getVolume"];
    assert.deepStrictEqual(Object.keys(getVolume.inputs.properties), ["host", "name", "pool"]);
    assert.deepStrictEqual(getVolume.inputs.required, ["name"]);
    assert.deepStrictEqual(schema.functions["kvm:index:getHost"].outputs.properties.pools, {
      type: "array",
      items: { $ref: "#/types/kvm:index:PoolSpace" },
      description: "each running pool and its free space",
    });
  });

  it("discover names each object after libvirt, adding the kind where another has the name", () => {
    assert.deepStrictEqual(
      uniqueNames([
        { kind: "StoragePool", name: "default" },
        { kind: "Network", name: "default" },
        { kind: "Volume", name: "disk 1.qcow2" },
        { kind: "Network", name: "default" },
      ]),
      ["default", "default-network", "disk-1.qcow2", "default-network-2"],
    );
  });

  it("codes libvirt's char[32] as 32 words, no count", () => {
    const model = [..."x86_64"].map((c) => c.charCodeAt(0)).concat(new Array(26).fill(0));
    const bytes = encode(fixedArray(int, 32), model);
    assert.strictEqual(bytes.length, 128);
    assert.deepStrictEqual(decode(fixedArray(int, 32), bytes), model);
    assert.throws(() => encode(fixedArray(int, 32), [1]), /fixed array of 32 given 1/);
  });
});
