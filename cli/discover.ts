// `pulumi-kvm discover --host SPEC`: what a host holds (storage pools, networks, volumes,
// domains) as Pulumi's import file, which `pulumi import --file` reads to write the program
// in the project's language. Each object is read as its import will read it, so what
// cannot be imported is named with the reason here, before any import runs. With --program
// typescript, the same objects become a program of the package's classes (discover-program.ts).
import * as fs from "fs";
import { parseArgs } from "util";
import { DISCOVERY_ORDER, Kind, KINDS } from "../provider/kinds";
import { HostPool, hostPool } from "../provider/pool/host-pool";
import { hostLabel } from "../provider/resources/host-inputs";
import { Libvirt } from "../provider/libvirt/api";
import { HostConfig } from "../provider/ssh/host";
import { DiscoveredObject, typescriptProgram } from "./discover-program";
import { parseHostSpec } from "./health-args";
import { exportStack, recordedResources } from "./stack";
import { planOrExit, UsageError } from "./usage";

export const DISCOVER_USAGE = `Write Pulumi's import file for what a libvirt host holds: its storage pools,
networks, volumes and domains, each with the ID pulumi import takes.

usage: pulumi-kvm discover --host [user@]address[:port] [options]

  --host SPEC         the host, as the provider's kvm:address (and kvm:user, kvm:port)
  --identity FILE     private key (kvm:privateKeyPath)
  --known-hosts FILE  known_hosts to verify the host key (kvm:knownHostsPath)
  --socket PATH       libvirtd's socket on the host (kvm:socketPath)
  --out FILE          where the import file goes (default: standard output)
  --match REGEX       only the objects whose libvirt name matches (e.g. '^web-')
  --stack NAME        leave out what this stack already manages (with --cwd DIR)
  --cwd DIR           the Pulumi project directory for --stack (default: .)
  --program typescript
                      write a TypeScript program of this package's classes instead,
                      each object adopted (adopt: true) as it is
  -h, --help          this help

then, in a Pulumi project of any language whose stack config has the same host:
  pulumi import --file FILE --protect=false
or, with --program typescript --out index.ts, in a TypeScript project: pulumi up

exit codes: 0 written, 2 usage error, 3 the command failed (a host it cannot reach)
docs/import.md: from a host made by hand to a stack, step by step
`;

/** One entry of `pulumi import --file`'s JSON. */
export interface ImportEntry {
  type: string;
  name: string;
  id: string;
  version: string;
}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: "string" },
      identity: { type: "string" },
      "known-hosts": { type: "string" },
      socket: { type: "string" },
      out: { type: "string" },
      match: { type: "string" },
      stack: { type: "string" },
      cwd: { type: "string" },
      program: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) throw new UsageError("");
  if (!values.host) throw new UsageError("name the host: --host [user@]address[:port]");
  if (values.program !== undefined && values.program !== "typescript")
    throw new UsageError(`--program ${values.program}: only typescript (other languages: pulumi import --file writes the program)`);
  const host: HostConfig = { ...parseHostSpec(values.host), privateKeyPath: values.identity, knownHostsPath: values["known-hosts"], socketPath: values.socket };
  return { host, out: values.out, stack: values.stack, cwd: values.cwd ?? process.cwd(), program: values.program, match: nameMatch(values.match) };
}

/** --match as a regular expression, or a usage error naming it. */
function nameMatch(source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(source);
  } catch (err) {
    throw new UsageError(`--match ${source}: not a regular expression (${(err as Error).message})`);
  }
}

/** The IDs of every object on the host of each kind discover knows, as a create would record them. */
async function objectIds(lv: Libvirt): Promise<{ kind: Kind; id: string; name: string; label: string }[]> {
  const out: { kind: Kind; id: string; name: string; label: string }[] = [];
  for (const kind of DISCOVERY_ORDER) for (const o of (await KINDS[kind].discovery?.list(lv)) ?? []) out.push({ kind, ...o });
  return out;
}

/** A name of its own for each object: libvirt's, with the kind added where another object has it. */
export function uniqueNames(objects: { kind: Kind; name: string }[]): string[] {
  const taken = new Set<string>();
  return objects.map(({ kind, name }) => {
    const base = name.replace(/[^A-Za-z0-9_.-]/g, "-");
    let candidate = taken.has(base) ? `${base}-${kind.toLowerCase()}` : base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}-${kind.toLowerCase()}-${n}`;
    taken.add(candidate);
    return candidate;
  });
}

/** What a stack manages already: its objects' IDs (a seed volume by its pool and name). */
async function managedIds(stack: string, cwd: string): Promise<Set<string>> {
  const state = await exportStack(stack, cwd);
  const ids = new Set<string>();
  for (const r of state.deployment?.resources ?? []) if (r.id) ids.add(String(r.id));
  for (const r of recordedResources(state)) if (r.uuid) ids.add(r.uuid);
  return ids;
}

/** Every object on the host that can be imported (whose name `match` matches), read as its import reads it, with a unique name. */
export async function discover(
  host: HostConfig,
  pool: HostPool,
  skip: Set<string>,
  warn: (s: string) => void,
  match?: RegExp,
): Promise<(DiscoveredObject & { id: string })[]> {
  const found: { kind: Kind; name: string; id: string; inputs: Record<string, unknown> }[] = [];
  const listed = await pool.run(host, (lv) => objectIds(lv));
  for (const o of listed) {
    if (skip.has(o.id) || (match && !match.test(o.name))) continue;
    try {
      // read as the import will: what cannot be imported is said now
      const { inputs } = await KINDS[o.kind].provider.importObject!(o.id, host);
      const stated = inputs as unknown as Record<string, unknown>;
      found.push({ kind: o.kind, name: String(stated.name), id: o.id, inputs: stated });
    } catch (err) {
      warn(`left out ${o.label}: ${(err as Error).message}\n`);
    }
  }
  const names = uniqueNames(found);
  return found.map((o, i) => ({ ...o, name: names[i] }));
}

/** Pulumi's import file: each object with its type, name, ID and the plugin version that reads it. */
export function importFile(objects: { kind: Kind; name: string; id: string }[], version: string): { resources: ImportEntry[] } {
  return { resources: objects.map((o) => ({ type: `kvm:index:${o.kind}`, name: o.name, id: o.id, version })) };
}

export async function discoverCommand(argv: string[], version: string): Promise<number> {
  const plan = planOrExit("discover", DISCOVER_USAGE, () => parse(argv));
  if (typeof plan === "number") return plan;
  const skip = plan.stack ? await managedIds(plan.stack, plan.cwd) : new Set<string>();
  // the pool the kinds' imports use: one connection for the listing and the reads
  const pool = hostPool;
  try {
    const objects = await discover(plan.host, pool, skip, (s) => process.stderr.write(`pulumi-kvm discover: ${s}`), plan.match);
    const file = plan.program ? typescriptProgram(plan.host, objects, hostLabel(plan.host)) : JSON.stringify(importFile(objects, version), null, 2) + "\n";
    if (plan.out) {
      fs.writeFileSync(plan.out, file);
      process.stderr.write(`pulumi-kvm discover: ${objects.length} object(s) of ${hostLabel(plan.host)} written to ${plan.out}\n`);
    } else process.stdout.write(file);
    return 0;
  } finally {
    await pool.closeAll();
  }
}
