// A kind's properties, declared once (design.md "Change classes"): each input's type,
// default, secrecy and how a change of it applies. check's defaults, diff, the update
// plan and docs/resources.md's tables derive from the declaration; a provider schema
// will too, so it stays data: the few comparisons that are not plain equality are
// named functions beside the data.
import { deepEqual } from "./deep-equal";
import { sameHost, sameLogin } from "./host-inputs";
import { DiffResult } from "./types";
import type { SomeObjectType } from "./object-types";

/**
 * How a change applies: `replace` (a new object), `restart` (redefined, one graceful
 * restart for all such changes), `live` (applied to the running object and its
 * definition), `record` (only stored).
 */
export type ChangeClass = "replace" | "restart" | "live" | "record";

export interface Property<I, O> {
  /** The type as the docs (and a schema) show it: "integer" where only whole numbers do. */
  type: string;
  /** What it is, for the docs' reference table. */
  doc: string;
  /** The value check fills in when the program leaves it out. */
  default?: string | number | boolean | readonly never[];
  /** Where the value comes from when left out, when that is not a literal ("the resource name"). */
  defaultDoc?: string;
  required?: boolean;
  secret?: boolean;
  change: ChangeClass;
  /** Left out, the provider fills it in: the record always holds a value (the SDK's output is never undefined). */
  filled?: boolean;
  /** Compared only when the program gives it: otherwise the record holds what libvirt chose. */
  onlyWhenGiven?: boolean;
  /** Never compared: a hint for check (the engine's resource name, a local file's size). */
  hint?: boolean;
  /** Filled by the SDK, not written by users: left out of the docs' tables. */
  bySdk?: boolean;
  /** When the recorded and the new value count as the same, when that is not equality (defaults applied). */
  same?: (olds: O, news: I) => boolean;
  /** The docs list the fields of this input's object type one by one (they change as it does). */
  listFields?: boolean;
  /** A difference that needs a new object though its class is milder, and when that is. */
  replaceWhen?: { doc: string; test: (olds: O, news: I) => boolean };
  /** A live change that needs a restart after all, and when that is. */
  restartWhen?: { doc: string; test: (olds: O, news: I) => boolean };
}

/** An output the kind adds to its inputs: what the host reports, or what the provider records for itself. */
export interface OutputProperty {
  /** The type as the docs (and a schema) show it. */
  type: string;
  doc: string;
  /** Recorded for the provider's own use (what proves an object is the one made): not for programs. */
  internal?: boolean;
  /** Absent on some objects (an overlay's base, a seed volume). */
  optional?: boolean;
}

/** `optional: true` exactly where the outputs' interface leaves the member out sometimes (a schema's SDKs type it so). */
type OptionalAs<O, K extends keyof O> = undefined extends O[K] ? { optional: true } : { optional?: never };

export interface Declaration<I, O> {
  /** The kind's name (kinds/index.ts lists it under the same). */
  kind: string;
  /** What an object of the kind is, for its SDK classes and the schema. */
  doc: string;
  /** Every input, each once: a forgotten one is a compile error. */
  properties: { readonly [K in keyof Required<I>]: Property<I, O> };
  /** Every output beyond the inputs (and kvmKind, the kind itself), each once: a forgotten one is a compile error. */
  outputs: { readonly [K in Exclude<keyof Required<O>, keyof I | "kvmKind">]: OutputProperty & OptionalAs<O, K> };
  /** The inputs that name the object on its host: replacing it with the same ones deletes first. */
  namedBy: readonly (keyof I & string)[];
  /** Drift that only an update undoes (a pool found stopped): an update even with equal inputs. */
  drifted?: (olds: O) => boolean;
  /** The structured values only this kind has, by the name its types use (those kinds share: object-types.ts). */
  types?: Readonly<Record<string, SomeObjectType>>;
}

type Values = Record<string, unknown>;

const CHANGE_SENTENCES: Record<ChangeClass, string> = {
  replace: "A change replaces the resource.",
  restart: "A change redefines the domain and restarts it once.",
  live: "A change applies in place, live.",
  record: "A change is only recorded.",
};

/** A property's description for the schema and the SDK: what it is, its default, and how a change of it applies. */
export function propertyDoc(p: Property<unknown, unknown>): string {
  const doc = `${p.doc[0].toUpperCase()}${p.doc.slice(1)}.`;
  const fallback = p.defaultDoc ?? (p.default !== undefined ? `\`${JSON.stringify(p.default)}\`` : undefined);
  const change = p.hint ? "Not compared." : CHANGE_SENTENCES[p.change];
  const escalations = [
    p.replaceWhen && `It replaces the resource on ${p.replaceWhen.doc}.`,
    p.restartWhen && `It restarts the domain for ${p.restartWhen.doc}.`,
  ];
  return [doc, fallback && `Default: ${fallback}.`, change, ...escalations].filter(Boolean).join(" ");
}

/** The inputs with every absent property that has a literal default filled in (check's first step). */
export function withDefaults<I extends object, O>(decl: Declaration<I, O>, news: I): I {
  const out: Values = { ...(news as Values) };
  for (const [k, p] of Object.entries<Property<I, O>>(decl.properties)) {
    if (out[k] === undefined && p.default !== undefined) out[k] = Array.isArray(p.default) ? [...p.default] : p.default;
  }
  return out as I;
}

function unchanged<I extends object, O extends object>(key: string, p: Property<I, O>, olds: O, news: I): boolean {
  if (p.hint) return true;
  if (p.same) return p.same(olds, news);
  const now = (news as Values)[key];
  if (p.onlyWhenGiven && now === undefined) return true;
  return deepEqual((olds as Values)[key] ?? p.default, now ?? p.default);
}

/** How this change of a property applies: its class, or the stronger one its escalation asks for. */
function classOf<I, O>(p: Property<I, O>, olds: O, news: I): ChangeClass {
  if (p.change === "replace" || p.replaceWhen?.test(olds, news)) return "replace";
  if (p.change === "restart" || p.restartWhen?.test(olds, news)) return "restart";
  return p.change;
}

/** The properties that differ, each with how its change applies. */
export function changedProperties<I extends object, O extends object>(decl: Declaration<I, O>, olds: O, news: I): { name: string; change: ChangeClass }[] {
  return Object.entries<Property<I, O>>(decl.properties)
    .filter(([k, p]) => !unchanged(k, p, olds, news))
    .map(([k, p]) => ({ name: k, change: classOf(p, olds, news) }));
}

/** The changed properties of one class (the update plan asks, e.g., whether a restart is due). */
export function changedOf<I extends object, O extends object>(decl: Declaration<I, O>, olds: O, news: I, change: ChangeClass): string[] {
  return changedProperties(decl, olds, news)
    .filter((c) => c.change === change)
    .map((c) => c.name);
}

/**
 * diff, derived: a change of any property, the replaces by class, delete-first only when the
 * replacement takes the same name on the same host (on another host both can exist at once,
 * so the new one is made first and the old one stays until it is).
 */
export function diffOf<I extends object, O extends object>(decl: Declaration<I, O>, olds: O, news: I): DiffResult {
  const changed = changedProperties(decl, olds, news);
  const replaces = changed.filter((c) => c.change === "replace").map((c) => c.name);
  const samePlace =
    decl.namedBy.every((k) => deepEqual((olds as Values)[k], (news as Values)[k])) && sameHost((olds as Values).host as never, (news as Values).host as never);
  return { changes: changed.length > 0 || !!decl.drifted?.(olds), replaces, deleteBeforeReplace: replaces.length > 0 && samePlace };
}

/**
 * The connection, as every kind declares it: another login is recorded; another machine or
 * socket replaces the object, made there first, or, for a kind that `moves` (a Domain), moves
 * it there in an update (what `moves` says).
 */
export function hostProperty<I extends { host: unknown }, O extends { host: unknown }>(moves?: string): Property<I, O> {
  const doc = "the libvirt host and how to log in to it ([connection.md](connection.md)); its secrets stay secret";
  return {
    type: "Host",
    doc: moves ? `${doc}. Another address, port, socket or URI ${moves}` : doc,
    required: true,
    change: "record",
    same: (o, n) => sameLogin(o.host as never, n.host as never),
    ...(moves
      ? {}
      : {
          replaceWhen: {
            doc: "another address, port, user, socket or URI (made there before the old one goes)",
            test: (o: O, n: I) => !sameHost(o.host as never, n.host as never),
          },
        }),
  };
}

/** The name on the host: the resource's name when left out. */
export function nameProperty<I, O>(doc: string): Property<I, O> {
  return { type: "string", doc, defaultDoc: "the resource name", filled: true, change: "replace" };
}

/** The engine's name of the resource, which `name` defaults to: never compared. */
export function resourceNameProperty<I, O>(): Property<I, O> {
  return { type: "string", doc: "the Pulumi resource's name, the default of `name`", hint: true, bySdk: true, change: "record" };
}

export function adoptProperty<I, O>(what: string): Property<I, O> {
  return {
    type: "boolean",
    doc: `take over ${what}; see [Adopting](#adopting-objects-made-outside-pulumi)`,
    default: false,
    change: "record",
  };
}
