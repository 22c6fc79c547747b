// pulumi-kvm: KVM virtual machines on remote libvirt hosts over SSH.
export { Image } from "./image";
export type { ImageArgs, ImageSourceArgs } from "./image";
export { Volume } from "./volume";
export type { VolumeArgs } from "./volume";
export { Domain } from "./domain";
export type { DomainArgs, DiskArgs, NetworkInterfaceArgs, CloudInitArgs, WaitForIpArgs, InterfaceState } from "./domain";
export type { HostArgs } from "./host";
export { StoragePool } from "./storage-pool";
export type { StoragePoolArgs } from "./storage-pool";
export { Network } from "./network";
export type { NetworkArgs, DhcpArgs, DhcpHostArgs } from "./network";
export { Snapshot } from "./snapshot";
export type { SnapshotArgs } from "./snapshot";
export { getDomain, getHost, getNetwork, getStoragePool, getVolume } from "./lookups";
export type { GetDomainResult, GetHostResult, GetNetworkResult, GetStoragePoolResult, GetVolumeResult } from "./lookups";
