// `pulumi-kvm discover --program typescript`: what a host holds as a TypeScript program of
// the package's classes, each object adopted (`adopt: true`) with the inputs its import
// reads, so its first `pulumi up` takes the objects over as they are and changes nothing
// on the host. A domain depends on the volumes and networks its devices name (a disk on an
// adopted volume is that kvm.Volume), a volume on its pool and its base, so destroy removes
// them in an order libvirt accepts.
import { DISCOVERY_ORDER, Kind, KINDS } from "../provider/kinds";
import type { Discovery, ObjectName } from "../provider/resources/kind";
import { HostConfig } from "../provider/ssh/host";

/** One object to adopt: its kind, the program's name for it and the inputs its import read. */
export interface DiscoveredObject {
  kind: Kind;
  name: string;
  inputs: Record<string, unknown>;
}

/** The host fields discover connects with, as the program's `host` literal. */
const HOST_FIELDS = ["address", "port", "user", "privateKeyPath", "knownHostsPath", "socketPath"] as const;

/** The key that finds an object by what another object's inputs call it. */
const refKey = (o: ObjectName) => `${o.kind}\0${String(o.name)}\0${String(o.place ?? "default")}`;

const discoveryOf = (o: DiscoveredObject): Discovery<Record<string, unknown>> => KINDS[o.kind].discovery as Discovery<never>;

/** The key others' inputs find `o` by: its kind, name and place (a volume's pool). */
const ownKey = (o: DiscoveredObject) => refKey({ kind: o.kind, name: o.inputs.name, place: discoveryOf(o).placeOf?.(o.inputs) });

/** What an object's inputs name of other objects (a domain its disks and networks, a volume its pool and base). */
const references = (o: DiscoveredObject) => (discoveryOf(o).references?.(o.inputs) ?? []).map(refKey);

/** Words a `const` cannot be named. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with implements interface let package private " +
    "protected public static yield await arguments eval"
  ).split(" "),
);

/** A valid, unique TypeScript identifier for each object: its name in camelCase, with its kind where that is a reserved word. */
function identifiers(objects: DiscoveredObject[]): string[] {
  const taken = new Set<string>(["kvm", "host"]);
  return objects.map(({ name, kind }) => {
    const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
    let id = words.map((w, n) => (n === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join("") || "object";
    if (/^[0-9]/.test(id)) id = `_${id}`;
    if (RESERVED.has(id)) id += kind;
    let candidate = id;
    for (let n = 2; taken.has(candidate); n++) candidate = `${id}${n}`;
    taken.add(candidate);
    return candidate;
  });
}

/** A value that stands for the variable `id` in the program (written as `id`, not a string). */
const variable = (id: string) => `\u0000${id}\u0000`;

/** An object literal's members, one a line, as JSON writes them (a valid TypeScript literal), variables as themselves. */
const literalMembers = (value: Record<string, unknown>) =>
  JSON.stringify(value, null, 2)
    .slice(1, -1)
    .replace(/"\\u0000([A-Za-z0-9_$]+)\\u0000"/g, "$1");

/** `objects` in an order where each comes after what it names: pools and networks, then volumes (a base before its overlays), then domains. */
function dependencyOrder(objects: DiscoveredObject[]): DiscoveredObject[] {
  const pending = [...objects].sort((a, b) => DISCOVERY_ORDER.indexOf(a.kind) - DISCOVERY_ORDER.indexOf(b.kind));
  const present = new Set(pending.map(ownKey));
  const done = new Set<string>();
  const out: DiscoveredObject[] = [];
  while (pending.length) {
    // the first whose references are all written (a reference to an object left out is no constraint)
    const next = pending.findIndex((o) => references(o).every((r) => done.has(r) || !present.has(r) || r === ownKey(o)));
    const [o] = pending.splice(next === -1 ? 0 : next, 1);
    out.push(o);
    done.add(ownKey(o));
  }
  return out;
}

/** Its inputs as the program writes them: what it names of the program's objects as their variables. */
function inProgram(o: DiscoveredObject, inputs: Record<string, unknown>, byRef: Map<string, string>): Record<string, unknown> {
  const write = discoveryOf(o).inProgram;
  if (!write) return inputs;
  return write(inputs, (named) => {
    const id = byRef.get(refKey(named));
    return id === undefined ? undefined : variable(id);
  });
}

/** index.ts adopting `objects` on `host`, each after what it names. */
export function typescriptProgram(host: HostConfig, objects: DiscoveredObject[], hostLabel: string): string {
  const sorted = dependencyOrder(objects);
  const ids = identifiers(sorted);
  const byRef = new Map<string, string>();
  sorted.forEach((o, n) => byRef.set(ownKey(o), ids[n]));
  const hostLiteral = Object.fromEntries(HOST_FIELDS.filter((f) => host[f] !== undefined).map((f) => [f, host[f]]));
  const lines = [
    `// Written by pulumi-kvm discover --program typescript from ${hostLabel}: each object is adopted as it is.`,
    "// The first `pulumi up` takes them over without changing them; from then on they are managed as if",
    "// made here (docs/import.md). Check the formats and bases stated below: they are what you confirm.",
    'import * as kvm from "pulumi-kvm";',
    "",
    `const host: kvm.HostArgs = ${JSON.stringify(hostLiteral, null, 2)};`,
    "",
  ];
  sorted.forEach((o, n) => {
    const { host: _host, ...inputs } = o.inputs;
    const deps = [
      ...new Set(
        references(o)
          .map((r) => byRef.get(r))
          .filter((d): d is string => d !== undefined && d !== ids[n]),
      ),
    ];
    const options = deps.length ? `, { dependsOn: [${deps.join(", ")}] }` : "";
    lines.push(
      `export const ${ids[n]} = new kvm.${o.kind}(${JSON.stringify(o.name)}, {\n  host,\n  adopt: true,${literalMembers(inProgram(o, inputs, byRef))}}${options});`,
    );
  });
  return lines.join("\n") + "\n";
}
