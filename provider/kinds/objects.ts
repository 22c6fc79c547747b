// The host objects resources make, by the name the journal gives them. The journal,
// rollback, the error classifier and collisions reach an object's kind only through this.
import { domainObject } from "./domain/object";
import { networkObject } from "./network/object";
import { networkFilterObject } from "./network-filter/object";
import { snapshotObject } from "./snapshot/object";
import { poolObject } from "./storage-pool/object";
import { volumeObject } from "./volume/object";
import type { LibvirtCode } from "../libvirt/errors";

export const OBJECTS = {
  volume: volumeObject,
  domain: domainObject,
  pool: poolObject,
  network: networkObject,
  networkFilter: networkFilterObject,
  snapshot: snapshotObject,
} as const;

export type ObjectKind = keyof typeof OBJECTS;
/** The objects a create journals before it makes them (a snapshot is made in one call). */
export type JournalledKind = Exclude<ObjectKind, "snapshot">;

/** Every code that means an object of some kind is gone. */
export const GONE_CODES: readonly LibvirtCode[] = [...new Set(Object.values(OBJECTS).flatMap((o) => o.gone))];
