// The seam between the resources and libvirt: one method per libvirt call the package
// uses, derived from the table in calls.ts. Implemented over the RPC client
// (rpc-libvirt.ts) and decorated by tracing.ts. Everything above this layer takes
// libvirt's types, constants and errors from here, never from rpc/.
import type { DhcpLease, DomainInterface, DomainRef, NetworkRef, PoolRef, SnapshotRef, TypedParam, VolumeRef } from "../rpc/types";
import type { InboundStream } from "../rpc/inbound-stream";
import type { DownloadOptions, TransferProgress, UploadChunk, UploadOptions } from "../rpc/stream";
import type { Call, Calls } from "./calls";

export type {
  DhcpLease,
  DomainInterface,
  DomainRef,
  InboundStream,
  NetworkRef,
  PoolRef,
  SnapshotRef,
  TypedParam,
  VolumeRef,
  UploadChunk,
  UploadOptions,
  DownloadOptions,
  TransferProgress,
};
export { Impact, MetadataType } from "./calls";
export { isLibvirtError, LibvirtError, RpcAbortError, unlessMissing } from "./errors";
export type { LibvirtCode } from "./errors";

export interface PoolInfo {
  state: number;
  capacity: bigint;
  allocation: bigint;
  available: bigint;
}

/** virStoragePoolState */
export const PoolState = { INACTIVE: 0, BUILDING: 1, RUNNING: 2, DEGRADED: 3, INACCESSIBLE: 4 } as const;
/** virStoragePoolState names, indexed by value ("running"). */
export const POOL_STATES = Object.keys(PoolState).map((k) => k.toLowerCase());

/** virDomainState */
export const DomainState = { NOSTATE: 0, RUNNING: 1, BLOCKED: 2, PAUSED: 3, SHUTDOWN: 4, SHUTOFF: 5, CRASHED: 6, PMSUSPENDED: 7 } as const;
/** The reasons libvirt gives for each DomainState (virDomain<State>Reason), by state, indexed by value. */
export const DOMAIN_STATE_REASONS: Record<number, readonly string[]> = {
  [DomainState.RUNNING]: [
    "unknown",
    "booted",
    "migrated",
    "restored",
    "from snapshot",
    "unpaused",
    "migration canceled",
    "save canceled",
    "wakeup",
    "crashed",
    "postcopy",
    "postcopy failed",
  ],
  [DomainState.BLOCKED]: ["unknown"],
  [DomainState.PAUSED]: [
    "unknown",
    "user",
    "migration",
    "save",
    "dump",
    "I/O error",
    "watchdog",
    "from snapshot",
    "shutting down",
    "snapshot",
    "crashed (guest panic)",
    "starting up",
    "postcopy",
    "postcopy failed",
    "API error",
  ],
  [DomainState.SHUTDOWN]: ["unknown", "user"],
  [DomainState.SHUTOFF]: ["unknown", "shutdown", "destroyed", "crashed", "migrated", "saved", "failed to start", "from snapshot", "daemon"],
  [DomainState.CRASHED]: ["unknown", "panicked"],
  [DomainState.PMSUSPENDED]: ["unknown"],
};
/** virDomainState names, indexed by value ("shut off"). */
export const DOMAIN_STATES = ["no state", "running", "blocked", "paused", "shutting down", "shut off", "crashed", "suspended"] as const;
/** virDomainCreateFlags */
export const StartFlags = { PAUSED: 1 } as const;
/** virDomainInterfaceAddressesSource */
export const AddressSource = { LEASE: 0, AGENT: 1, ARP: 2 } as const;
/** virDomainUndefineFlagsValues */
export const UndefineFlags = { MANAGED_SAVE: 1, SNAPSHOTS_METADATA: 2, NVRAM: 4, CHECKPOINTS_METADATA: 16, TPM: 32 } as const;
/** virDomainMigrateFlags */
export const MigrateFlags = {
  LIVE: 1,
  PERSIST_DEST: 8,
  UNDEFINE_SOURCE: 16,
  PAUSED: 32,
  NON_SHARED_DISK: 64,
  NON_SHARED_INC: 128,
  CHANGE_PROTECTION: 256,
  OFFLINE: 1024,
} as const;
/** virTypedParameterType: the arms of a TypedParam's value */
export const TypedParamType = { INT: 1, UINT: 2, LLONG: 3, ULLONG: 4, BOOLEAN: 6, STRING: 7 } as const;
/** virDomainXMLFlags */
export const DomainXmlFlags = { SECURE: 1, INACTIVE: 2 } as const;

/** Each unary row of the table as a method: its seam arguments, then an optional AbortSignal. */
type CallMethods = {
  [K in keyof Calls as Calls[K] extends Call<any, any, any, any> ? K : never]: Calls[K] extends Call<infer P, any, any, infer T>
    ? (...args: [...P, AbortSignal?]) => Promise<T>
    : never;
};

export interface Libvirt extends CallMethods {
  uploadVolume(vol: VolumeRef, source: AsyncIterable<UploadChunk>, opts?: UploadOptions): Promise<TransferProgress>;
  downloadVolume(vol: VolumeRef, opts?: DownloadOptions): AsyncGenerator<Buffer>;
  /** Reads the guest's serial console; `onData` gets its bytes as they come. Fails when another client holds it. */
  openConsole(dom: DomainRef, onData: (chunk: Buffer) => void, signal?: AbortSignal): Promise<InboundStream>;
}

/** "shut off (crashed)": a domain's state and libvirt's reason for it, as users read them. */
export function describeState(s: { state: number; reason: number }): string {
  const name = DOMAIN_STATES[s.state] ?? `state ${s.state}`;
  const reason = DOMAIN_STATE_REASONS[s.state]?.[s.reason] ?? `reason ${s.reason}`;
  // how a running domain got there (booted, resumed after a paused start) is no news
  return reason === "unknown" || (s.state === DomainState.RUNNING && s.reason <= 1) || reason === "unpaused" ? name : `${name} (${reason})`;
}
