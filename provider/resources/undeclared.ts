// Inputs a kind does not declare (a misspelt `memroy`, a `tpm` this version lacks) are
// refused by check, each named with the closest declared one: YAML and Python programs
// have no compiler to notice them, and an ignored input is a setting silently not made.
// Fields of structured values (a disk, a NIC, the host) are checked by their object type.
import { CheckFailure } from "./input-checks";
import { alternatives, isRecord } from "./declared-types";
import { SHARED_TYPES, SomeObjectType } from "./object-types";
import { Declaration } from "./properties";

/** Edit distance (insertions, deletions, substitutions, and swaps of neighbours: "memroy"), for the "did you mean" of a misspelt name. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The declared name a misspelling most likely meant: the nearest one, when near enough to be a typo. */
export function closest(name: string, declared: string[]): string | undefined {
  const lower = name.toLowerCase();
  const ranked = declared.map((d) => ({ d, distance: editDistance(lower, d.toLowerCase()) })).sort((x, y) => x.distance - y.distance);
  const best = ranked[0];
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.d : undefined;
}

/** The object types (a kind's and the shared ones) by name. */
type Types = Readonly<Record<string, SomeObjectType>>;

/** The object types a declared type names ("Disk[]", "boolean | WaitForIp"), with whether it is a list of them. */
const objectTypesOf = (declared: string, types: Types) => alternatives(declared).filter((t) => t.name in types);

/** The undeclared fields of `value` (at `path`), one object type's fields, and of the values inside it. */
function undeclaredFields(path: string, value: unknown, declared: string, what: string, types: Types, out: CheckFailure[]): void {
  for (const t of objectTypesOf(declared, types)) {
    const items = t.list ? (Array.isArray(value) ? value.map((v, i) => [`${path}[${i}]`, v] as const) : []) : [[path, value] as const];
    for (const [at, item] of items) {
      if (!isRecord(item)) continue;
      const fields = types[t.name].fields as Record<string, Declared>;
      undeclaredKeys(at, item, fields, `a ${t.name} (${what})`, types, out);
    }
  }
}

/** A declared input or field: its type, and whether the SDK fills it (allowed, not listed to users). */
type Declared = { type: string; bySdk?: boolean };

function undeclaredKeys(path: string, value: Record<string, unknown>, fields: Record<string, Declared>, what: string, types: Types, out: CheckFailure[]): void {
  const names = Object.keys(fields).filter((k) => !fields[k].bySdk);
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (v === undefined) continue;
    if (!(key in fields)) {
      const near = closest(key, names);
      out.push({
        property: at,
        reason: `${at}: ${what} has no input "${key}".${near ? ` Did you mean "${near}"?` : ""} Its inputs are ${names.join(", ")} (docs/resources.md); remove it or correct its name`,
      });
      continue;
    }
    undeclaredFields(at, v, fields[key].type, what, types, out);
  }
}

/**
 * The inputs of `news` the kind does not declare, as check failures. What the engine and
 * the SDK add (the dynamic provider's `__provider`, the kind) is not an input.
 */
export function undeclaredInputs(decl: Pick<Declaration<unknown, unknown>, "kind" | "properties" | "types">, news: Record<string, unknown>): CheckFailure[] {
  const out: CheckFailure[] = [];
  const given = Object.fromEntries(Object.entries(news).filter(([k]) => !k.startsWith("__") && k !== "kvmKind"));
  undeclaredKeys("", given, decl.properties, `a ${decl.kind}`, { ...SHARED_TYPES, ...decl.types }, out);
  return out;
}
