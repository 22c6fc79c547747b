// The Pulumi package schema of the kvm provider plugin, generated from the declaration of
// kinds (provider/resources/declarations.ts): every input with its type, description,
// default, secrecy and whether a change replaces; every output a program reads. Nothing
// here is written by hand per kind.
import { Kind } from "../provider/kinds";
import { DECLARATIONS } from "../provider/resources/declarations";
import { ChangeClass, OutputProperty, Property } from "../provider/resources/properties";

export const PACKAGE = "kvm";

/** The type token of a kind: kvm:index:Domain. */
export const typeToken = (kind: Kind) => `${PACKAGE}:index:${kind}`;

type SchemaType = { type: "string" | "boolean" | "number" } | { type: "array"; items: SchemaType } | { $ref: string };

const ANY: SchemaType = { $ref: "pulumi.json#/Any" };

/** How a declared type (as the docs show it) is a schema type: primitives as such, structured values as Any. */
const TYPES: [RegExp, SchemaType][] = [
  [/^string$/, { type: "string" }],
  [/^boolean$/, { type: "boolean" }],
  [/^number$/, { type: "number" }],
  [/^string\[\]$/, { type: "array", items: { type: "string" } }],
  // a choice of strings, named in the description
  [/^"[^"]+"( \| "[^"]+")*$/, { type: "string" }],
  // another resource's name: a program passes its name output
  [/^(Image|Volume)( \| (Image|Volume))* \| string$/, { type: "string" }],
  // a size as a number or a string with a unit, a flag or its settings, objects and lists of them
  [/^number \| string\b/, ANY],
  [/^boolean \| \{/, ANY],
  [/^(Host|object|DiskInput\[\]|InterfaceInput\[\]|\{.*\}|\[\{.*\}\])$/, ANY],
];

export function schemaType(declared: string): SchemaType {
  const found = TYPES.find(([re]) => re.test(declared));
  if (!found) throw new Error(`no schema type for the declared type ${JSON.stringify(declared)}: add a row to plugin/schema.ts`);
  return found[1];
}

const CHANGES: Record<ChangeClass, string> = {
  replace: "A change replaces the resource.",
  restart: "A change redefines the domain and restarts it once.",
  live: "A change applies in place, live.",
  record: "A change is only recorded.",
};

function inputProperty(p: Property<unknown, unknown>) {
  const type = schemaType(p.type);
  // a schema default is a constant of the property's own primitive type ("512MiB" is not one of Any)
  const constant = "type" in type && typeof p.default === type.type;
  return {
    ...type,
    description: `${p.doc}. ${p.defaultDoc ? `Default: ${p.defaultDoc}. ` : ""}${CHANGES[p.change]}`,
    ...(constant ? { default: p.default } : {}),
    ...(p.secret ? { secret: true } : {}),
    ...(p.change === "replace" ? { replaceOnChanges: true } : {}),
  };
}

const outputProperty = (o: OutputProperty) => ({ ...schemaType(o.type), description: o.doc });

/** One kind as a schema resource: what a program writes (not the SDK's own hints) and what it reads back. */
function resourceOf(kind: Kind) {
  const decl = DECLARATIONS[kind];
  const inputs = Object.entries<Property<unknown, unknown>>(decl.properties).filter(([, p]) => !p.bySdk);
  const outputs = Object.entries<OutputProperty>(decl.outputs).filter(([, o]) => !o.internal);
  return {
    description: `A libvirt ${kind} of a host reached over SSH (docs/resources.md of pulumi-kvm).`,
    inputProperties: Object.fromEntries(inputs.map(([k, p]) => [k, inputProperty(p)])),
    requiredInputs: inputs.filter(([, p]) => p.required).map(([k]) => k),
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
    resources: Object.fromEntries((Object.keys(DECLARATIONS) as Kind[]).map((kind) => [typeToken(kind), resourceOf(kind)])),
  };
}

export const schemaJson = (version: string) => JSON.stringify(packageSchema(version));
