// The one list of resource kinds. Dispatch, the plugin's schema, the generated SDKs, the
// docs' tables, the CLI and the tests loop over it; nothing outside kinds/ names a kind.
import type { Declaration } from "../resources/properties";
import type { KindModule } from "../resources/kind";
import { SHARED_TYPES, SomeObjectType } from "../resources/object-types";
import { domainKind } from "./domain";
import { imageKind } from "./image";
import { networkKind } from "./network";
import { networkFilterKind } from "./network-filter";
import { snapshotKind } from "./snapshot";
import { storagePoolKind } from "./storage-pool";
import { volumeKind } from "./volume";

/** Each kind under its name (every input and output carries it as `kvmKind`, the schema as kvm:index:NAME). */
export const KINDS = {
  Image: imageKind,
  Volume: volumeKind,
  Domain: domainKind,
  StoragePool: storagePoolKind,
  Network: networkKind,
  Snapshot: snapshotKind,
  NetworkFilter: networkFilterKind,
} as const satisfies Record<string, KindModule>;

export type Kind = keyof typeof KINDS;

export const KIND_NAMES = Object.keys(KINDS) as Kind[];

export function isKind(v: unknown): v is Kind {
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(KINDS, v);
}

/** Every kind's declaration, by kind. */
export const DECLARATIONS: { readonly [K in Kind]: Declaration<any, any> } = {} as Record<Kind, Declaration<any, any>>;
for (const k of KIND_NAMES) (DECLARATIONS as Record<Kind, Declaration<any, any>>)[k] = KINDS[k].declaration;

/** Every structured value type by the name declarations use: those kinds share, and each kind's own. */
export const OBJECT_TYPES: Readonly<Record<string, SomeObjectType>> = Object.assign({ ...SHARED_TYPES }, ...KIND_NAMES.map((k) => DECLARATIONS[k].types ?? {}));

/** How many kinds deep what a kind's inputs name goes: pools and networks 0, volumes 1, domains 2. */
function depth(kind: Kind, seen: readonly Kind[] = []): number {
  const named = ((KINDS[kind] as KindModule).discovery?.names ?? []).filter((k): k is Kind => isKind(k) && k !== kind && !seen.includes(k));
  return named.length ? 1 + Math.max(...named.map((k) => depth(k, [...seen, kind]))) : 0;
}

/** The kinds `pulumi-kvm discover` finds on a host, in the order a program makes them: each after what it names. */
export const DISCOVERY_ORDER: readonly Kind[] = KIND_NAMES.filter((k) => (KINDS[k] as KindModule).discovery).sort(
  (a, b) => depth(a) - depth(b) || KIND_NAMES.indexOf(a) - KIND_NAMES.indexOf(b),
);
