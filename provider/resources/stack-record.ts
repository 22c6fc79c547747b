// A resource as a stack's state records it, and finding its object on the host again the
// way the stack made it: by the recorded UUID, never another object under its name.
import type { HostConfig } from "../ssh/host";
import { findRecorded } from "./host-object";

export interface StackRecord {
  urn: string;
  kind: string;
  name: string;
  /** The pool the host check asks for: a volume's, a domain's ("default"), a StoragePool's own; none for a Network. */
  pool?: string;
  host: HostConfig;
  /** A domain's recorded running state, a pool's or network's "is active". */
  running?: boolean;
  /** A snapshot's domain. */
  domain?: string;
  /** The identity recorded: a domain's, pool's or network's UUID, a snapshot's domain's (none in records of older versions). */
  uuid?: string;
}

/** An object of the recorded name that is not the one the stack made (another UUID): someone else's, left alone. */
export class NotTheStacks extends Error {}

/** The object of the recorded name when it is the one the stack made (findRecorded; older records have no UUID: by name). */
export async function theRecorded<R extends { uuid: Buffer }>(r: StackRecord, lookup: Promise<R>): Promise<R> {
  if (!r.uuid) return lookup;
  const { ref, other } = await findRecorded(lookup, r.uuid);
  if (other || !ref)
    throw new NotTheStacks(
      `the ${r.kind} named ${r.name} on the host is another one (not the UUID the stack recorded), which pulumi-kvm leaves alone; pulumi refresh will drop the record`,
    );
  return ref;
}

/** An object with nothing to report but that it is there (a volume, a snapshot, a filter). */
export const present = async (lookup: Promise<unknown>): Promise<undefined> => void (await lookup);

/** A pool's or network's state as the host says it. */
export const activity = (active: boolean) => ({ active, said: active ? "active" : "not active" });
