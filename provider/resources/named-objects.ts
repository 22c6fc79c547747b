// Objects an input names where its declaration allows a resource or its name ("Kind |
// string", a NIC's filter): a name makes no Pulumi dependency, and libvirt starts no VM
// whose filter is missing, so a create finds each on the host first (each kind's object
// says how: kinds/objects.ts) and names the property when one is not there.
import { KvmError } from "../kvm-error";
import type { Libvirt } from "../libvirt/api";
import { OBJECTS } from "../kinds/objects";
import { alternatives, isRecord } from "./declared-types";
import { NamedObject } from "./object-kind";
import { SHARED_TYPES } from "./object-types";
import { Declaration } from "./properties";
import { isUnknown } from "./unknown";

const NAMED = new Map<string, NamedObject>(
  Object.values(OBJECTS).flatMap((o): [string, NamedObject][] => ("named" in o && o.named ? [[o.named.type, o.named]] : [])),
);

/** The named objects in `inputs`, each with the property that names it. */
function namedIn(
  path: string,
  value: unknown,
  declared: string,
  decl: Pick<Declaration<unknown, unknown>, "types">,
): { path: string; name: string; object: NamedObject }[] {
  if (value === undefined || isUnknown(value)) return [];
  const types = { ...SHARED_TYPES, ...decl.types };
  return alternatives(declared).flatMap((t) => {
    if (t.list) return Array.isArray(value) ? value.flatMap((v, i) => namedIn(`${path}[${i}]`, v, t.name, decl)) : [];
    const object = NAMED.get(t.name);
    if (object && typeof value === "string") return [{ path, name: value, object }];
    const fields = types[t.name]?.fields;
    if (!fields || !isRecord(value)) return [];
    return Object.entries(fields).flatMap(([k, f]) => namedIn(`${path}.${k}`, value[k], f.type, decl));
  });
}

/** Fails naming the property when an object the inputs name is not on the host. */
export async function requireNamedObjects(
  lv: Libvirt,
  decl: Pick<Declaration<unknown, unknown>, "properties" | "types">,
  inputs: object,
  host: string,
): Promise<void> {
  const given = inputs as Record<string, unknown>;
  for (const [key, p] of Object.entries<{ type: string }>(decl.properties)) {
    for (const { path, name, object } of namedIn(key, given[key], p.type, decl)) {
      if (await object.exists(lv, name)) continue;
      throw new KvmError("permanent", `there is no ${object.what} "${name}" on the host`, {
        host,
        property: path,
        fix: `Pass the ${object.type} resource itself (Pulumi then makes it first), or add it to dependsOn, or define it on the host (${object.define})`,
      });
    }
  }
}
