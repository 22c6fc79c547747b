// The entry points the serialized shim calls, and the one boundary to the engine: each
// routes to its resource kind by the kvmKind every input and output carries, and every
// result (and a partial-init error's properties) crosses `toEngine` on the way out.
import { engineError, toEngine } from "./engine";
import { isKind, KINDS } from "../kinds";
import type { KindModule } from "./kind";
import { processContext } from "./context";
import { runLookup } from "./lookups";
import type { HostConfig } from "../ssh/host";
import { undeclaredInputs } from "./undeclared";
import { dialAhead } from "./hosts-ahead";
import { hostPool } from "../pool/host-pool";

function kindOf(...values: ({ kvmKind?: unknown } | undefined)[]): KindModule {
  const kind = values.find((v) => v?.kvmKind)?.kvmKind;
  if (!isKind(kind))
    throw new Error(`pulumi-kvm: unknown resource kind ${JSON.stringify(kind)}; is the installed pulumi-kvm older than the one that created this resource?`);
  return KINDS[kind];
}

async function crossing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return toEngine(await work());
  } catch (err) {
    throw engineError(err);
  }
}

/** The kind's check, and every input it does not declare refused by name (undeclared.ts). */
export const check = (olds: any, news: any) =>
  crossing(async () => {
    // the hosts the program declared, dialled before their own checks come
    dialAhead(hostPool);
    const { provider, declaration } = kindOf(news, olds);
    const result = await provider.check(olds, news);
    const undeclared = undeclaredInputs(declaration, news);
    return undeclared.length ? { ...result, failures: [...(result.failures ?? []), ...undeclared] } : result;
  });
export const diff = (id: string, olds: any, news: any) => crossing(() => kindOf(news, olds).provider.diff(id, olds, news));
export const create = (inputs: any) => crossing(() => kindOf(inputs).provider.create(inputs));
/** A read with nothing recorded (no name) is `pulumi import`'s: the kind finds the object by its ID. */
export const read = (id: string, props: any) =>
  crossing(async () => {
    if (props.name !== undefined) return kindOf(props).provider.read(id, props);
    const kind = kindOf(props).provider;
    if (!kind.importObject) throw new Error(`pulumi-kvm: a ${props.kvmKind} cannot be imported`);
    const { id: found, inputs, outs } = await kind.importObject(id, props.host);
    // as a create records it: the resource's own name beside the object's
    return { id: found, props: { ...outs, resourceName: props.resourceName }, inputs };
  });
export const update = (id: string, olds: any, news: any) => crossing(() => kindOf(news, olds).provider.update(id, olds, news));
export const del = (id: string, props: any) => crossing(() => kindOf(props).provider.delete(id, props));
/** A read-only lookup (getDomain, getHost, …: lookups.ts) on `host`. */
export const lookup = (name: string, host: HostConfig, args: Record<string, unknown>) => crossing(() => runLookup(processContext.pool, name, host, args));
