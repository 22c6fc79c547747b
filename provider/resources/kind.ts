// What a resource kind is, as the one list (kinds/index.ts) holds it: dispatch, the schema,
// the SDKs, the docs' tables and the CLI's stack health reach a kind only through this.
import type { Libvirt } from "../libvirt/api";
import type { Declaration } from "./properties";
import type { StackRecord } from "./stack-record";
import type { ResourceProvider } from "./types";

export interface KindModule<I = any, O = any> {
  /** Its inputs and outputs, each once: the source of check's defaults, diff, the docs, the schema and the SDKs. */
  declaration: Declaration<I, O>;
  /** check/diff/create/read/update/delete, and import. */
  provider: ResourceProvider<I, O>;
  /** How `pulumi-kvm health --stack` reads a record of it. */
  record: RecordReading<O>;
}

export interface RecordReading<O> {
  /** From the recorded outputs: the pool its object is in, whether it runs, what identifies it. */
  read(outputs: O): Pick<StackRecord, "pool" | "running" | "domain" | "uuid">;
  /** The words for running and not (a domain's "running"/"stopped"; by default "active"/"inactive"). */
  states?: readonly [string, string];
  /** The object's state on the host, undefined when it has none; throws when it is gone or someone else's (NotTheStacks). */
  onHost(lv: Libvirt, r: StackRecord): Promise<{ active: boolean; said: string } | undefined>;
}
