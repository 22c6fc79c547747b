// The Pulumi package schema of the kvm provider plugin, generated from the declaration of
// kinds (provider/kinds/index.ts): every input with its type, description,
// default, secrecy and whether a change replaces; every output a program reads; the
// structured values (a host, a disk, …) as object types. Nothing here is written by hand per kind.
import { isKind, Kind } from "../provider/kinds";
import { DECLARATIONS, OBJECT_TYPES } from "../provider/kinds";
import { Field, ObjectType } from "../provider/resources/object-types";
import { OutputProperty, Property, propertyDoc } from "../provider/resources/properties";
import { Lookup, LOOKUPS } from "../provider/resources/lookups";

export const PACKAGE = "kvm";

/** The generated Go SDK's module: no server serves it, a program points it at the generated folder (docs/languages.md). */
export const GO_IMPORT_PATH = "pulumi-kvm/sdk/go/kvm";

/** The type token of a kind: kvm:index:Domain. */
export const typeToken = (kind: Kind) => `${PACKAGE}:index:${kind}`;

type Primitive = "string" | "boolean" | "number" | "integer";
type SchemaType = { type: Primitive } | { type: "array"; items: SchemaType } | { $ref: string } | { oneOf: SchemaType[] };

/** The token of an object type of OBJECT_TYPES: kvm:index:Host. */
const objectToken = (name: string) => `${PACKAGE}:index:${name}`;

/** One alternative of a declared type: a primitive, a string constant, another resource (passed by name), an object type, a list. */
function alternative(t: string, declared: string): SchemaType {
  if (t === "string" || t === "boolean" || t === "number" || t === "integer") return { type: t };
  // another resource is passed by its name
  if (/^"[^"]*"$/.test(t) || isKind(t)) return { type: "string" };
  if (t.endsWith("[]")) return { type: "array", items: alternative(t.slice(0, -2), declared) };
  if (t in OBJECT_TYPES) return { $ref: `#/types/${objectToken(t)}` };
  throw new Error(`no schema type for the declared type ${JSON.stringify(declared)}: declare ${JSON.stringify(t)} in provider/resources/object-types.ts`);
}

/** A declared type (as the docs show it: `number | string ("2GiB", or MiB)`) as a schema type; a union of several is a oneOf. */
export function schemaType(declared: string): SchemaType {
  const alternatives = declared
    .replace(/\s*\(.*\)$/, "")
    .split(" | ")
    .map((t) => alternative(t, declared));
  const distinct = alternatives.filter((a, i) => alternatives.findIndex((b) => JSON.stringify(a) === JSON.stringify(b)) === i);
  return distinct.length === 1 ? distinct[0] : { oneOf: distinct };
}

function inputProperty(p: Property<unknown, unknown>) {
  const type = schemaType(p.type);
  // a schema default is a constant of the property's own primitive type ("512MiB" is not one of Any)
  const constant = "type" in type && (type.type === "integer" ? Number.isInteger(p.default) : typeof p.default === type.type);
  return {
    ...type,
    description: propertyDoc(p),
    ...(constant ? { default: p.default } : {}),
    ...(p.secret ? { secret: true } : {}),
    ...(p.change === "replace" ? { replaceOnChanges: true } : {}),
  };
}

const outputProperty = (o: OutputProperty) => ({ ...schemaType(o.type), description: o.doc });

/** `{ [key]: names }`, or nothing where there are none (the CLI drops empty lists from a schema it serves). */
const nonEmpty = <K extends string>(key: K, names: string[]) => (names.length ? { [key]: names } : {}) as Partial<Record<K, string[]>>;

const required = (fields: Record<string, Field>) =>
  nonEmpty(
    "required",
    Object.entries(fields)
      .filter(([, f]) => f.required)
      .map(([k]) => k),
  );

/** A structured value as a schema object type: its fields, typed and described. */
const objectType = (t: ObjectType<unknown>) => ({
  type: "object",
  description: `${t.doc}.`,
  properties: Object.fromEntries(
    Object.entries<Field>(t.fields)
      .filter(([, f]) => !f.bySdk)
      .map(([k, f]) => [k, { ...schemaType(f.type), description: f.doc, ...(f.secret ? { secret: true } : {}) }]),
  ),
  ...required(t.fields),
});

/** Inputs a resource may leave to its provider's configuration (a resource's own overrides it). */
const FROM_PROVIDER = ["host"];

/** The provider's settings: the Host's fields, as stack config (`kvm:address`) and as an explicit provider's inputs. */
function providerSettings() {
  const host = objectType(OBJECT_TYPES.Host);
  return { properties: host.properties, doc: `${OBJECT_TYPES.Host.doc}; a resource's own host overrides it.` };
}

/** The token of a lookup: kvm:index:getDomain. */
export const functionToken = (name: string) => `${PACKAGE}:index:${name}`;

/** A lookup as a schema function: its arguments (a host of its own, else the provider's) and its results. */
function functionOf(lookup: Lookup) {
  const args = objectType({
    doc: "The lookup's arguments",
    fields: { host: { type: "Host", doc: "the host; the provider's where left out" }, ...lookup.args },
  });
  const results = objectType({ doc: "What the host says", fields: lookup.results });
  return {
    description: `${lookup.doc}.`,
    inputs: { properties: args.properties, ...required(lookup.args) },
    outputs: { properties: results.properties, ...required(lookup.results) },
  };
}

/** One kind as a schema resource: what a program writes (not the SDK's own hints) and what it reads back. */
function resourceOf(kind: Kind) {
  const decl = DECLARATIONS[kind];
  const inputs = Object.entries<Property<unknown, unknown>>(decl.properties).filter(([, p]) => !p.bySdk);
  const outputs = Object.entries<OutputProperty>(decl.outputs).filter(([, o]) => !o.internal);
  return {
    description: `${decl.doc}, on a libvirt host reached over SSH (docs/resources.md of pulumi-kvm).`,
    inputProperties: Object.fromEntries(inputs.map(([k, p]) => [k, inputProperty(p)])),
    // left out when empty, as the CLI serves it
    ...nonEmpty(
      "requiredInputs",
      inputs.filter(([k, p]) => p.required && !FROM_PROVIDER.includes(k)).map(([k]) => k),
    ),
    // what every object has: required inputs, those check fills in, and the outputs always reported
    required: [
      ...inputs.filter(([k, p]) => p.required || p.default !== undefined || decl.namedBy.includes(k)).map(([k]) => k),
      ...outputs.filter(([, o]) => !o.optional).map(([k]) => k),
    ],
    properties: {
      ...Object.fromEntries(inputs.map(([k, p]) => [k, { ...schemaType(p.type), description: p.doc, ...(p.secret ? { secret: true } : {}) }])),
      ...Object.fromEntries(outputs.map(([k, o]) => [k, outputProperty(o)])),
    },
  };
}

export function packageSchema(version: string) {
  return {
    name: PACKAGE,
    displayName: "KVM (libvirt over SSH)",
    version,
    description:
      "KVM virtual machines on remote libvirt hosts over SSH, speaking libvirt's RPC protocol: images, volumes, domains, storage pools, networks and snapshots.",
    keywords: ["pulumi", "kvm", "libvirt", "category/infrastructure", "kind/native"],
    license: "Apache-2.0",
    language: { go: { importBasePath: GO_IMPORT_PATH, respectSchemaVersion: true }, python: { respectSchemaVersion: true } },
    config: { variables: providerSettings().properties },
    provider: {
      description: `The kvm provider of one libvirt host. ${providerSettings().doc}`,
      inputProperties: providerSettings().properties,
      properties: providerSettings().properties,
    },
    types: Object.fromEntries(Object.entries(OBJECT_TYPES).map(([name, t]) => [objectToken(name), objectType(t)])),
    functions: Object.fromEntries(Object.entries(LOOKUPS).map(([name, lookup]) => [functionToken(name), functionOf(lookup)])),
    resources: Object.fromEntries((Object.keys(DECLARATIONS) as Kind[]).map((kind) => [typeToken(kind), resourceOf(kind)])),
  };
}

export const schemaJson = (version: string) => JSON.stringify(packageSchema(version));
