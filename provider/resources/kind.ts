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
  /** How `pulumi-kvm discover` finds its objects on a host; none for kinds discover leaves to the user. */
  discovery?: Discovery<I>;
}

/** An object as others' inputs name it: its kind, its name and, for a volume, its pool. */
export interface ObjectName {
  kind: string;
  name: unknown;
  place?: unknown;
}

export interface Discovery<I> {
  /** Every object of the kind on the host, with the ID `pulumi import` takes. */
  list(lv: Libvirt): Promise<{ id: string; name: string; label: string }[]>;
  /** The kinds its inputs can name: a program makes those first. */
  names?: readonly string[];
  /** Where others' inputs find it beside its name (a volume's pool). */
  placeOf?(inputs: I): unknown;
  /** The objects its inputs name. */
  references?(inputs: I): ObjectName[];
  /** Its inputs as a program writes them: what it names of the program's own objects as those objects (`variable`; undefined when left out). */
  inProgram?(inputs: I, variable: (o: ObjectName) => string | undefined): I;
}

export interface RecordReading<O> {
  /** From the recorded outputs: the pool its object is in, whether it runs, what identifies it. */
  read(outputs: O): Pick<StackRecord, "pool" | "running" | "domain" | "uuid">;
  /** The words for running and not (a domain's "running"/"stopped"; by default "active"/"inactive"). */
  states?: readonly [string, string];
  /** The object's state on the host, undefined when it has none; throws when it is gone or someone else's (NotTheStacks). */
  onHost(lv: Libvirt, r: StackRecord): Promise<{ active: boolean; said: string } | undefined>;
}
