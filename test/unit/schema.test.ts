// The provider plugin's schema, generated from the declaration of kinds: a property
// declared and missing from the schema, or described otherwise, fails here.
import * as assert from "assert";
import { KIND_NAMES } from "../../provider/kinds";
import { DECLARATIONS, OBJECT_TYPES } from "../../provider/kinds";
import { Field } from "../../provider/resources/object-types";
import { OutputProperty, Property, propertyDoc } from "../../provider/resources/properties";
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
        assert.strictEqual(input.description, propertyDoc(p), name);
        assert.strictEqual((r.requiredInputs ?? []).includes(name), !!p.required && name !== "host", `${name} (host: the provider's where left out)`);
        if (typeof p.default === "string" || typeof p.default === "boolean" || typeof p.default === "number") {
          const ofType = input.type === "integer" ? Number.isInteger(p.default) : input.type === typeof p.default;
          assert.strictEqual(input.default, ofType ? p.default : undefined, name);
        }
        assert.ok(name in r.properties, `${kind}.${name} is an output too`);
        assert.strictEqual(r.required.includes(name), !!p.required || p.default !== undefined || decl.namedBy.includes(name), `${kind}.${name} as an output`);
      }
      for (const [name, o] of Object.entries<OutputProperty>(decl.outputs)) {
        assert.strictEqual(name in r.properties, !o.internal, `${kind}.${name}`);
        assert.strictEqual(r.required.includes(name), !o.internal && !o.optional, `${kind}.${name} is always there unless declared optional`);
      }
    });
  }

  it("types each declared type: choices of strings as strings, object types by reference, unions as oneOf; refuses what it cannot type", () => {
    assert.deepStrictEqual(schemaType('"a" | "b"'), { type: "string" });
    assert.deepStrictEqual(schemaType("Image | Volume | string"), { type: "string" });
    assert.deepStrictEqual(schemaType('number | string ("2GiB", or MiB)'), { oneOf: [{ type: "number" }, { type: "string" }] });
    assert.deepStrictEqual(schemaType("Disk[]"), { type: "array", items: { $ref: "#/types/kvm:index:Disk" } });
    assert.deepStrictEqual(schemaType("boolean | WaitForIp"), { oneOf: [{ type: "boolean" }, { $ref: "#/types/kvm:index:WaitForIp" }] });
    assert.throws(() => schemaType("Map<string, Host>"), /no schema type for the declared type "Map<string, Host>": declare "Map<string, Host>" in/);
    assert.throws(() => schemaType("Nic[]"), /no schema type for the declared type "Nic\[\]": declare "Nic" in provider\/resources\/object-types.ts/);
  });

  it("has every object type with each field typed and described, required and secret as declared, and every reference resolves", () => {
    assert.deepStrictEqual(
      Object.keys(schema.types).sort(),
      Object.keys(OBJECT_TYPES)
        .map((n) => `kvm:index:${n}`)
        .sort(),
    );
    for (const [name, t] of Object.entries(OBJECT_TYPES)) {
      const s = schema.types[`kvm:index:${name}`];
      const fields = Object.entries<Field>(t.fields).filter(([, f]) => !f.bySdk);
      assert.deepStrictEqual(
        Object.keys(s.properties),
        fields.map(([k]) => k),
        `${name}: every field but the SDK's own`,
      );
      for (const [field, f] of fields) {
        assert.deepStrictEqual(s.properties[field], { ...schemaType(f.type), description: f.doc, ...(f.secret ? { secret: true } : {}) }, `${name}.${field}`);
        assert.strictEqual((s.required ?? []).includes(field), !!f.required, `${name}.${field}`);
      }
    }
    const refs = JSON.stringify(schema).match(/#\/types\/[^"]+/g) ?? [];
    assert.ok(refs.length > 10, "the kinds use object types");
    for (const ref of refs) assert.ok(ref.slice("#/types/".length) in schema.types, ref);
    assert.deepStrictEqual(schema.types["kvm:index:Host"].required, ["address"]);
    assert.strictEqual(schema.types["kvm:index:Host"].properties.privateKey.secret, true);
  });

  it("configures the provider with the Host's fields, as stack config (kvm:address) and as an explicit provider's inputs, secrets secret", () => {
    const fields = Object.keys(OBJECT_TYPES.Host.fields);
    assert.deepStrictEqual(Object.keys(schema.config.variables), fields);
    assert.deepStrictEqual(Object.keys(schema.provider.inputProperties), fields);
    assert.strictEqual(schema.config.variables.privateKey.secret, true);
    assert.strictEqual(schema.provider.inputProperties.passphrase.secret, true);
    assert.deepStrictEqual(schema.config.variables.port, { type: "integer", description: OBJECT_TYPES.Host.fields.port.doc });
  });
});
