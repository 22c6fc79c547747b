// The provider plugin's schema, generated from the declaration of kinds: a property
// declared and missing from the schema, or described otherwise, fails here.
import * as assert from "assert";
import { KIND_NAMES } from "../../provider/kinds";
import { DECLARATIONS } from "../../provider/resources/declarations";
import { OutputProperty, Property } from "../../provider/resources/properties";
import { packageSchema, schemaType, typeToken } from "../../plugin/schema";

describe("plugin schema", () => {
  const schema = packageSchema("1.2.3");

  it("has every kind as kvm:index:<Kind>, and the package's version", () => {
    assert.deepStrictEqual(Object.keys(schema.resources).sort(), KIND_NAMES.map((k) => `kvm:index:${k}`).sort());
    assert.strictEqual(schema.version, "1.2.3");
  });

  for (const kind of KIND_NAMES) {
    it(`${kind}: every declared input and output, with its class, secrecy, requirement and default`, () => {
      const r = schema.resources[typeToken(kind)];
      const decl = DECLARATIONS[kind];
      for (const [name, p] of Object.entries<Property<unknown, unknown>>(decl.properties)) {
        const input = r.inputProperties[name] as Record<string, unknown> | undefined;
        if (p.bySdk) {
          assert.strictEqual(input, undefined, `${name} is the SDK's, not the program's`);
          continue;
        }
        assert.ok(input, `${kind}.${name} is declared but not in the schema`);
        assert.strictEqual(input.replaceOnChanges, p.change === "replace" ? true : undefined, name);
        assert.strictEqual(input.secret, p.secret ? true : undefined, name);
        assert.ok(String(input.description).startsWith(p.doc), name);
        assert.strictEqual(r.requiredInputs.includes(name), !!p.required, name);
        if (typeof p.default === "string" || typeof p.default === "boolean" || typeof p.default === "number") {
          assert.strictEqual(input.default, "type" in input && input.type === typeof p.default ? p.default : undefined, name);
        }
        assert.ok(name in r.properties, `${kind}.${name} is an output too`);
      }
      for (const [name, o] of Object.entries<OutputProperty>(decl.outputs)) {
        assert.strictEqual(name in r.properties, !o.internal, `${kind}.${name}`);
      }
    });
  }

  it("refuses a declared type it has no schema type for", () => {
    assert.deepStrictEqual(schemaType('"a" | "b"'), { type: "string" });
    assert.deepStrictEqual(schemaType("Image | Volume | string"), { type: "string" });
    assert.throws(() => schemaType("Map<string, Host>"), /no schema type for the declared type "Map<string, Host>"/);
  });
});
