// The entry points the serialized shim calls: each routes to its resource kind by the
// kvmKind every input and output carries.
import { domainProvider } from "./domain";
import { imageProvider } from "./image";
import { ResourceProvider } from "./types";
import { volumeProvider } from "./volume";

export type Kind = "Image" | "Volume" | "Domain";

const kinds: Record<Kind, ResourceProvider<any, any>> = { Image: imageProvider, Volume: volumeProvider, Domain: domainProvider };

function of(...values: ({ kvmKind?: Kind } | undefined)[]): ResourceProvider<any, any> {
  const kind = values.find((v) => v?.kvmKind)?.kvmKind;
  const p = kind && kinds[kind as Kind];
  if (!p) throw new Error(`pulumi-kvm: unknown resource kind ${JSON.stringify(kind)}; is the installed pulumi-kvm older than the one that created this resource?`);
  return p;
}

export const check = (olds: any, news: any) => of(news, olds).check(olds, news);
export const diff = (id: string, olds: any, news: any) => of(news, olds).diff(id, olds, news);
export const create = (inputs: any) => of(inputs).create(inputs);
export const read = (id: string, props: any) => of(props).read(id, props);
export const update = (id: string, olds: any, news: any) => of(news, olds).update(id, olds, news);
export const del = (id: string, props: any) => of(props).delete(id, props);
