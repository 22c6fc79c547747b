// Pulumi's provider protocol over the same core the dynamic resources use
// (provider/resources/dispatch.ts): the kind comes from the type token of the URN, the
// default name from its name, and secrets cross both ways. Inputs may arrive wrapped as
// secrets; an output is returned as a secret when its input came as one or the kind
// declares it secret. A resource without a host is on its provider's (config.ts).
import type { CheckResult, CreateResult, DiffResult, Provider, ReadResult, UpdateResult } from "@pulumi/pulumi/provider";
import { isKind, Kind } from "../provider/kinds";
import { DECLARATIONS } from "../provider/kinds";
import * as core from "../provider/resources/dispatch";
import type { HostConfig } from "../provider/ssh/host";
import { deepEqual } from "../provider/resources/deep-equal";
import { hostOfResource } from "./config";
import { schemaJson } from "./schema";
import { unwrapSecrets, wrapSecrets } from "./secrets";

/** The kind and the resource's name of a URN: urn:pulumi:STACK::PROJECT::[PARENT$]kvm:index:Domain::NAME. */
export function kindOfUrn(urn: string): { kind: Kind; name: string } {
  const parts = urn.split("::");
  const type = (parts[2] ?? "").split("$").pop() ?? "";
  const kind = type.split(":")[2];
  if (!isKind(kind)) throw new Error(`pulumi-resource-kvm: unknown resource type "${type}" (this plugin serves ${Object.keys(DECLARATIONS).join(", ")})`);
  return { kind, name: parts.slice(3).join("::") };
}

type Props = Record<string, unknown>;

/** Members of the core's records the engine never sees as inputs a program writes. */
const CORE_ONLY = ["kvmKind", "resourceName"];

/**
 * The core's view of a record or of inputs: plain values, its kind, the default of its
 * name, and its provider's host where it has none of its own.
 */
function coreProps(urn: string, props: Props | undefined, host: HostConfig | undefined) {
  const { kind, name } = kindOfUrn(urn);
  const { props: plain, secret } = unwrapSecrets(props);
  const withHost = plain.host === undefined && host ? { host } : {};
  const record: Props = { ...plain, ...withHost, kvmKind: kind, resourceName: name };
  return { kind, secret, props: record };
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

/** The inputs an import returns, as a program writes them: its provider's host left to the provider. */
function importedInputs(inputs: Props, providerHost: HostConfig | undefined): Props {
  const own = Object.fromEntries(Object.entries(inputs).filter(([k]) => !CORE_ONLY.includes(k)));
  if (providerHost && deepEqual(own.host, providerHost)) delete own.host;
  return own;
}

/** The plugin's provider; `providerHost` is its configuration's host (config-service.ts) at the time of each call. */
export function kvmProvider(version: string, providerHost: () => HostConfig | undefined = () => undefined): Provider {
  return {
    version,
    schema: schemaJson(version),
    async check(urn, olds: Props, news: Props): Promise<CheckResult> {
      const host = providerHost();
      const n = coreProps(urn, news, host);
      const own = hostOfResource(n.props.host, host, n.kind);
      if (own.failure) return { inputs: news, failures: [{ property: "host", reason: own.failure }] };
      const o = olds && Object.keys(olds).length ? coreProps(urn, olds, host).props : undefined;
      const r = (await core.check(o, n.props)) as { inputs: Props; failures: { property: string; reason: string }[] };
      return { inputs: wrapSecrets(n.kind, r.inputs, n.secret), failures: r.failures };
    },
    async diff(id, urn, olds: Props, news: Props): Promise<DiffResult> {
      const host = providerHost();
      return await core.diff(id, coreProps(urn, olds, host).props, coreProps(urn, news, host).props);
    },
    async create(urn, inputs: Props): Promise<CreateResult> {
      const n = coreProps(urn, inputs, providerHost());
      const r = await recording<{ id: string; outs: Props }>(n.kind, n.secret, () => core.create(n.props));
      return { id: r.id, outs: wrapSecrets(n.kind, r.outs, n.secret) };
    },
    async read(id, urn, props: Props): Promise<ReadResult> {
      const host = providerHost();
      const p = coreProps(urn, props, host);
      // `pulumi import`: nothing recorded, the object found by its ID on the provider's host
      if (p.props.name === undefined) {
        const own = hostOfResource(p.props.host, host, p.kind);
        if (own.failure) throw new Error(own.failure);
      }
      const r = (await core.read(id, p.props)) as { id: string; props: Props; inputs?: Props };
      const inputs = r.inputs && wrapSecrets(p.kind, importedInputs(r.inputs, host), p.secret);
      return { id: r.id, props: wrapSecrets(p.kind, r.props, p.secret), ...(inputs ? { inputs } : {}) };
    },
    async update(id, urn, olds: Props, news: Props): Promise<UpdateResult> {
      const host = providerHost();
      const n = coreProps(urn, news, host);
      const r = await recording<{ outs: Props }>(n.kind, n.secret, () => core.update(id, coreProps(urn, olds, host).props, n.props));
      return { outs: wrapSecrets(n.kind, r.outs, n.secret) };
    },
    async invoke(token: string, inputs: Props) {
      const { props: args } = unwrapSecrets(inputs);
      const name = token.split(":").pop() ?? token;
      const { host, failure } = hostOfResource(args.host, providerHost(), name);
      if (failure) throw new Error(failure.replace(/^host: this \w+/, `host: ${name}`));
      const { host: _given, ...rest } = args;
      return { outputs: await core.lookup(name, host as HostConfig, rest) };
    },
    async delete(id, urn, props: Props): Promise<void> {
      await core.del(id, coreProps(urn, props, providerHost()).props);
    },
  };
}
