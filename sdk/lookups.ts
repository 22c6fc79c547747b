// Read-only lookups of what a program references but does not manage, run from the
// program's own process over a connection of their own (provider/resources/lookups.ts
// declares them; the plugin serves the same ones as kvm:index:getDomain, …).
import * as pulumi from "@pulumi/pulumi";
import type { HostArgs } from "./types";

/** A host as a lookup takes it: plain values. */
export type HostConfig = pulumi.Unwrap<HostArgs>;

export interface GetDomainResult {
  uuid: string;
  name: string;
  /** libvirt's state: "running", "shut off", … */
  state: string;
  running: boolean;
  autostart: boolean;
  vcpu: number;
  /** MiB. */
  memory: number;
  firmware: "bios" | "uefi";
  /** Each NIC's MAC, in the definition's order. */
  macs: string[];
}

export interface GetNetworkResult {
  uuid: string;
  name: string;
  mode: string;
  bridge?: string;
  addresses: string[];
  active: boolean;
  autostart: boolean;
}

export interface GetVolumeResult {
  name: string;
  pool: string;
  /** The ID `pulumi import` takes (a dir pool's: the path). */
  key: string;
  path: string;
  capacityBytes: number;
  /** libvirt's reading of the header, which a guest may have written: declare a disk's format yourself. */
  format?: string;
}

export interface GetStoragePoolResult {
  uuid: string;
  name: string;
  type: string;
  path: string;
  state: string;
  capacityBytes: number;
  availableBytes: number;
}

export interface GetHostResult {
  hostname: string;
  libvirtVersion: string;
  hypervisorVersion: string;
  cpuModel: string;
  cpus: number;
  memoryBytes: number;
  pools: { name: string; capacityBytes: number; availableBytes: number }[];
}

function lookup<R>(name: string, host: HostConfig, args: Record<string, unknown> = {}): Promise<R> {
  return require("pulumi-kvm/provider").lookupOnce(name, host, args) as Promise<R>;
}

export const getDomain = (args: { host: HostConfig; name: string }) => lookup<GetDomainResult>("getDomain", args.host, { name: args.name });
export const getNetwork = (args: { host: HostConfig; name: string }) => lookup<GetNetworkResult>("getNetwork", args.host, { name: args.name });
export const getVolume = (args: { host: HostConfig; name: string; pool?: string }) =>
  lookup<GetVolumeResult>("getVolume", args.host, { name: args.name, ...(args.pool ? { pool: args.pool } : {}) });
export const getStoragePool = (args: { host: HostConfig; name: string }) => lookup<GetStoragePoolResult>("getStoragePool", args.host, { name: args.name });
export const getHost = (args: { host: HostConfig }) => lookup<GetHostResult>("getHost", args.host);
