// What each kind of host object tells the code that handles objects of every kind (the
// journal, rollback, the error classifier, collisions): which libvirt codes mean it is
// gone, how a user removes it by hand, and, for one a create journals, how it is found
// again, proven to be the one made, and removed.
import type { Libvirt } from "../libvirt/api";
import type { LibvirtCode } from "../libvirt/errors";

export interface ObjectFacts {
  /** The codes meaning it (or what holds it) no longer exists. */
  gone: readonly LibvirtCode[];
  /** How a user removes it by hand; `place` is its pool (a volume's) or its domain (a snapshot's). */
  removal(name: string, place?: string): string;
  /** For an object another kind's input names (a NIC's filter), where its declared type allows a name: finding it by that name. */
  named?: NamedObject;
}

/** An object an input may name, as a declaration types it (its kind or a name: "Kind | string"). */
export interface NamedObject {
  /** The resource's type in declarations. */
  type: string;
  /** What it is, in messages. */
  what: string;
  /** Whether the host has one of that name. */
  exists(lv: Libvirt, name: string): Promise<boolean>;
  /** How a user makes one on the host by hand. */
  define: string;
}

/** How `pulumi import` finds an object by its UUID: the kind (as its ID's error names it), what it is, how the user lists them, and the lookup (undefined when none). */
export interface ImportLookup<R> {
  kind: string;
  what: string;
  listing: string;
  lookup: (lv: Libvirt, uuid: Buffer) => Promise<R | undefined>;
}

/** An object as the journal recorded it before it was made. */
export interface MadeObject {
  name: string;
  pool?: string;
  /** What proves it the one made (a volume's identity; a domain's, pool's, network's or filter's UUID). */
  id?: string;
}

export interface JournalledObject<R> extends ObjectFacts {
  /** Found under its name and proven the one made, or not; undefined when nothing proves it either way. */
  find(lv: Libvirt, made: MadeObject): Promise<{ ref: R; mine: boolean } | undefined>;
  /** Removed as its resource's delete removes it. */
  remove(lv: Libvirt, ref: R, host: string): Promise<void>;
}

/** Proven by the UUID the journal recorded: the way a pool, network or filter is. */
export async function byUuid<R extends { uuid: Buffer }>(made: MadeObject, lookup: Promise<R>): Promise<{ ref: R; mine: boolean } | undefined> {
  const ref = await lookup;
  return made.id ? { ref, mine: ref.uuid.toString("hex") === made.id } : undefined;
}
