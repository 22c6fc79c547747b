// The shape of a resource kind's implementation, as Pulumi's dynamic providers call it.
import type { HostConfig } from "../ssh/host";

export interface CheckResult<I> {
  inputs: I;
  failures: { property: string; reason: string }[];
}

export interface DiffResult {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

export interface ResourceProvider<I, O> {
  check(olds: O | undefined, news: I): Promise<CheckResult<I>>;
  diff(id: string, olds: O, news: I): Promise<DiffResult>;
  create(inputs: I): Promise<{ id: string; outs: O }>;
  read(id: string, props: O): Promise<{ id: string; props: O }>;
  update(id: string, olds: O, news: I): Promise<{ outs: O }>;
  delete(id: string, props: O): Promise<void>;
  /** `pulumi import`: the object of this ID on `host`, the inputs that make it and its outputs (import.ts). */
  importObject?(id: string, host: HostConfig): Promise<{ id: string; inputs: I; outs: O }>;
}
