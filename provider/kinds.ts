// The one registry of resource kinds and of the host objects they make. Dispatch, the
// journal, rollback, the CLI's stack health and the error classifier read it, so a kind
// missing anywhere is a compile error: each table below is keyed by these types.
import type { LibvirtCode } from "./libvirt/errors";

/** The host objects resources make, as the journal names them. */
export const OBJECTS = {
  volume: {
    /** The codes meaning it (or the pool holding it) no longer exists. */
    gone: ["NO_STORAGE_VOL", "NO_STORAGE_POOL"],
    /** How a user removes it by hand. */
    removal: (name: string, pool = "default") => `virsh vol-delete --pool ${pool} ${name}`,
  },
  domain: { gone: ["NO_DOMAIN"], removal: (name: string) => `virsh destroy ${name}; virsh undefine ${name} --nvram` },
  pool: { gone: ["NO_STORAGE_POOL"], removal: (name: string) => `virsh pool-destroy ${name}; virsh pool-undefine ${name}` },
  network: { gone: ["NO_NETWORK"], removal: (name: string) => `virsh net-destroy ${name}; virsh net-undefine ${name}` },
  networkFilter: { gone: ["NO_NWFILTER"], removal: (name: string) => `virsh nwfilter-undefine ${name}` },
  /** Taken in one call, never journalled; `domain` is the second argument of its removal. */
  snapshot: { gone: ["NO_DOMAIN_SNAPSHOT", "NO_DOMAIN"], removal: (name: string, domain = "DOMAIN") => `virsh snapshot-delete ${domain} ${name}` },
} as const satisfies Record<string, { gone: readonly LibvirtCode[]; removal: (name: string, pool?: string) => string }>;

export type ObjectKind = keyof typeof OBJECTS;
/** The objects a create journals before it makes them (a snapshot is made in one call). */
export type JournalledKind = Exclude<ObjectKind, "snapshot">;

/** The resource kinds (every input and output carries its kind as `kvmKind`) and the object each makes. */
export const KINDS = {
  Image: { object: "volume" },
  Volume: { object: "volume" },
  Domain: { object: "domain" },
  StoragePool: { object: "pool" },
  Network: { object: "network" },
  Snapshot: { object: "snapshot" },
  NetworkFilter: { object: "networkFilter" },
} as const satisfies Record<string, { object: ObjectKind }>;

export type Kind = keyof typeof KINDS;

export const KIND_NAMES = Object.keys(KINDS) as Kind[];

export function isKind(v: unknown): v is Kind {
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(KINDS, v);
}

/** Every code that means an object of some kind is gone. */
export const GONE_CODES: readonly LibvirtCode[] = [...new Set(Object.values(OBJECTS).flatMap((o) => o.gone))];
