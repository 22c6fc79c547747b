// Pulumi's provider protocol over the same core the dynamic resources use
// (provider/resources/dispatch.ts): the kind comes from the type token of the URN, the
// default name from its name, and secrets cross both ways. Inputs may arrive wrapped as
// secrets; an output is returned as a secret when its input came as one or the kind
// declares it secret.
import type { CheckResult, CreateResult, DiffResult, Provider, ReadResult, UpdateResult } from "@pulumi/pulumi/provider";
import { isKind, Kind } from "../provider/kinds";
import { DECLARATIONS } from "../provider/resources/declarations";
import { carriesSecret } from "../provider/resources/object-types";
import * as core from "../provider/resources/dispatch";
import { Property } from "../provider/resources/properties";
import { schemaJson } from "./schema";

/** Pulumi's marker of a secret value on the wire (sdk/go/common/resource/sig). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;

const isSecret = (v: unknown): v is { value: unknown } => !!v && typeof v === "object" && (v as Props)[SECRET_SIG] === SECRET_VALUE;

/** A value without secret wrappers, and whether it held one. */
function reveal(v: unknown): { value: unknown; secret: boolean } {
  if (isSecret(v)) return { value: reveal(v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(reveal);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => [k, reveal(x)] as const);
    return { value: Object.fromEntries(entries.map(([k, x]) => [k, x.value])), secret: entries.some(([, x]) => x.secret) };
  }
  return { value: v, secret: false };
}

/** Properties without secret wrappers, and the names of those that held one. */
export function unwrapSecrets(props: Props | undefined): { props: Props; secret: Set<string> } {
  const secret = new Set<string>();
  const out: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    const r = reveal(v);
    out[k] = r.value;
    if (r.secret) secret.add(k);
  }
  return { props: out, secret };
}

/** `props` with each secret one wrapped: those named, and those the kind declares secret (or secret by their value). */
export function wrapSecrets(kind: Kind, props: Props, secret: Set<string>): Props {
  const declared = DECLARATIONS[kind].properties as Record<string, Property<unknown, unknown>>;
  return Object.fromEntries(
    Object.entries(props).map(([k, v]) => {
      const p = declared[k];
      const hidden = secret.has(k) || (p !== undefined && v !== undefined && v !== null && (p.secret || carriesSecret(p.type, v)));
      return [k, hidden ? { [SECRET_SIG]: SECRET_VALUE, value: v } : v];
    }),
  );
}

/** The kind and the resource's name of a URN: urn:pulumi:STACK::PROJECT::[PARENT$]kvm:index:Domain::NAME. */
export function kindOfUrn(urn: string): { kind: Kind; name: string } {
  const parts = urn.split("::");
  const type = (parts[2] ?? "").split("$").pop() ?? "";
  const kind = type.split(":")[2];
  if (!isKind(kind)) throw new Error(`pulumi-resource-kvm: unknown resource type "${type}" (this plugin serves ${Object.keys(DECLARATIONS).join(", ")})`);
  return { kind, name: parts.slice(3).join("::") };
}

/** The core's view of a record or of inputs: plain values, its kind, and the default of its name. */
function coreProps(urn: string, props: Props | undefined) {
  const { kind, name } = kindOfUrn(urn);
  const { props: plain, secret } = unwrapSecrets(props);
  return { kind, secret, props: { ...plain, kvmKind: kind, resourceName: name } };
}

/** A partial-init error's record (a VM that booted but got no address) keeps its secrets secret too. */
async function recording<T>(kind: Kind, secret: Set<string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const e = err as { id?: string; properties?: Props };
    if (e.id && e.properties) e.properties = wrapSecrets(kind, e.properties, secret);
    throw err;
  }
}

export function kvmProvider(version: string): Provider {
  return {
    version,
    schema: schemaJson(version),
    async check(urn, olds: Props, news: Props): Promise<CheckResult> {
      const n = coreProps(urn, news);
      const o = olds && Object.keys(olds).length ? coreProps(urn, olds).props : undefined;
      const r = (await core.check(o, n.props)) as { inputs: Props; failures: { property: string; reason: string }[] };
      return { inputs: wrapSecrets(n.kind, r.inputs, n.secret), failures: r.failures };
    },
    async diff(id, urn, olds: Props, news: Props): Promise<DiffResult> {
      return await core.diff(id, coreProps(urn, olds).props, coreProps(urn, news).props);
    },
    async create(urn, inputs: Props): Promise<CreateResult> {
      const n = coreProps(urn, inputs);
      const r = await recording<{ id: string; outs: Props }>(n.kind, n.secret, () => core.create(n.props));
      return { id: r.id, outs: wrapSecrets(n.kind, r.outs, n.secret) };
    },
    async read(id, urn, props: Props): Promise<ReadResult> {
      const p = coreProps(urn, props);
      const r = await core.read(id, p.props);
      return { id: r.id, props: wrapSecrets(p.kind, r.props, p.secret) };
    },
    async update(id, urn, olds: Props, news: Props): Promise<UpdateResult> {
      const n = coreProps(urn, news);
      const r = await recording<{ outs: Props }>(n.kind, n.secret, () => core.update(id, coreProps(urn, olds).props, n.props));
      return { outs: wrapSecrets(n.kind, r.outs, n.secret) };
    },
    async delete(id, urn, props: Props): Promise<void> {
      await core.del(id, coreProps(urn, props).props);
    },
  };
}
