// The seam between the resources and libvirt: one method per libvirt call the package
// uses. Implemented over the RPC client (rpc-libvirt.ts) and decorated by tracing.ts.
import type { DhcpLease, DomainInterface, DomainRef, NetworkRef, PoolRef, VolumeRef } from "../rpc/types";
import type { DownloadOptions, TransferProgress, UploadChunk, UploadOptions } from "../rpc/stream";

export type { DhcpLease, DomainInterface, DomainRef, NetworkRef, PoolRef, VolumeRef, UploadChunk, UploadOptions, DownloadOptions, TransferProgress };

export interface PoolInfo {
  state: number;
  capacity: bigint;
  allocation: bigint;
  available: bigint;
}

export interface VolumeInfo {
  type: number;
  capacity: bigint;
  allocation: bigint;
}

/** virStoragePoolState */
export const PoolState = { INACTIVE: 0, BUILDING: 1, RUNNING: 2, DEGRADED: 3, INACCESSIBLE: 4 } as const;
/** virDomainState */
export const DomainState = { NOSTATE: 0, RUNNING: 1, BLOCKED: 2, PAUSED: 3, SHUTDOWN: 4, SHUTOFF: 5, CRASHED: 6, PMSUSPENDED: 7 } as const;
/** virDomainInterfaceAddressesSource */
export const AddressSource = { LEASE: 0, AGENT: 1, ARP: 2 } as const;
/** virDomainUndefineFlagsValues */
export const UndefineFlags = { MANAGED_SAVE: 1, SNAPSHOTS_METADATA: 2, NVRAM: 4, CHECKPOINTS_METADATA: 16 } as const;
/** virDomainXMLFlags */
export const DomainXmlFlags = { SECURE: 1, INACTIVE: 2 } as const;
/** virDomainMetadataType */
export const MetadataType = { DESCRIPTION: 0, TITLE: 1, ELEMENT: 2 } as const;
/** virDomainModificationImpact */
export const Impact = { CURRENT: 0, LIVE: 1, CONFIG: 2 } as const;

type S = AbortSignal | undefined;

export interface Libvirt {
  libVersion(signal?: S): Promise<bigint>;
  hostname(signal?: S): Promise<string>;

  lookupPool(name: string, signal?: S): Promise<PoolRef>;
  poolInfo(pool: PoolRef, signal?: S): Promise<PoolInfo>;
  poolXml(pool: PoolRef, signal?: S): Promise<string>;
  listVolumes(pool: PoolRef, signal?: S): Promise<VolumeRef[]>;

  lookupVolume(pool: PoolRef, name: string, signal?: S): Promise<VolumeRef>;
  volumeInfo(vol: VolumeRef, signal?: S): Promise<VolumeInfo>;
  volumeXml(vol: VolumeRef, signal?: S): Promise<string>;
  volumePath(vol: VolumeRef, signal?: S): Promise<string>;
  createVolume(pool: PoolRef, xml: string, signal?: S): Promise<VolumeRef>;
  deleteVolume(vol: VolumeRef, signal?: S): Promise<void>;
  resizeVolume(vol: VolumeRef, capacity: bigint, flags: number, signal?: S): Promise<void>;
  uploadVolume(vol: VolumeRef, source: AsyncIterable<UploadChunk>, opts?: UploadOptions): Promise<TransferProgress>;
  downloadVolume(vol: VolumeRef, opts?: DownloadOptions): AsyncGenerator<Buffer>;

  listDomains(signal?: S): Promise<DomainRef[]>;
  lookupDomain(name: string, signal?: S): Promise<DomainRef>;
  lookupDomainByUuid(uuid: Buffer, signal?: S): Promise<DomainRef>;
  domainXml(dom: DomainRef, flags: number, signal?: S): Promise<string>;
  defineDomain(xml: string, signal?: S): Promise<DomainRef>;
  undefineDomain(dom: DomainRef, flags: number, signal?: S): Promise<void>;
  startDomain(dom: DomainRef, signal?: S): Promise<DomainRef>;
  shutdownDomain(dom: DomainRef, signal?: S): Promise<void>;
  destroyDomain(dom: DomainRef, signal?: S): Promise<void>;
  domainState(dom: DomainRef, signal?: S): Promise<{ state: number; reason: number }>;
  domainAutostart(dom: DomainRef, signal?: S): Promise<boolean>;
  setDomainAutostart(dom: DomainRef, autostart: boolean, signal?: S): Promise<void>;
  domainMetadata(dom: DomainRef, uri: string, signal?: S): Promise<string>;
  interfaceAddresses(dom: DomainRef, source: number, signal?: S): Promise<DomainInterface[]>;

  lookupNetwork(name: string, signal?: S): Promise<NetworkRef>;
  networkIsActive(net: NetworkRef, signal?: S): Promise<boolean>;
  dhcpLeases(net: NetworkRef, mac: string | null, signal?: S): Promise<DhcpLease[]>;
}
export { isLibvirtError, LibvirtError, RpcAbortError } from "./errors";
export type { LibvirtCode } from "./errors";
