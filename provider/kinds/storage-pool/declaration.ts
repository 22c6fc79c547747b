// The StoragePool's properties, declared once (properties.ts): autostart changes in
// place, the definition replaces.
import { adoptProperty, Declaration, hostProperty, nameProperty, resourceNameProperty } from "../../resources/properties";
import type { HostConfig } from "../../ssh/host";
import type { PoolType } from "../../xml/pool";

export interface StoragePoolInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
  type: PoolType;
  /** The pool's directory on the host. */
  path: string;
  autostart?: boolean;
  adopt?: boolean;
}

export interface StoragePoolOutputs extends StoragePoolInputs {
  kvmKind: "StoragePool";
  uuid: string;
  state: string;
  capacityBytes: number;
  availableBytes: number;
}

export const storagePoolDeclaration: Declaration<StoragePoolInputs, StoragePoolOutputs> = {
  kind: "StoragePool",
  doc: "A directory storage pool on the host, which Images and Volumes go into",
  namedBy: ["name"],
  outputs: {
    uuid: { type: "string", doc: "the pool's UUID, its identity" },
    state: { type: "string", doc: 'libvirt\'s state: `"running"`, `"inactive"`, …' },
    capacityBytes: { type: "number", doc: "the size of the pool's file system" },
    availableBytes: { type: "number", doc: "the bytes free in it" },
  },
  // a pool found stopped (refresh) is started again by the update
  drifted: (o) => o.state !== undefined && o.state !== "running",
  properties: {
    host: hostProperty(),
    name: nameProperty("the pool's name on the host"),
    resourceName: resourceNameProperty(),
    type: { type: '"dir"', doc: "the only type pulumi-kvm makes", default: "dir", change: "replace" },
    path: { type: "string", doc: "an absolute directory on the host; made when missing", required: true, change: "replace" },
    autostart: { type: "boolean", doc: "started with the host", default: true, change: "live" },
    adopt: adoptProperty("a storage pool of that name made outside Pulumi"),
  },
};
