import * as pulumi from "@pulumi/pulumi";
import { HostArgs } from "./host";

/** Where a volume-backed resource lives. */
export interface StorageArgs {
  /** The libvirt host and how to log in (docs/connection.md). Another address, port, user, socket or URI replaces the resource; a login change is only recorded. */
  host: pulumi.Input<HostArgs>;
  /** Storage pool (default "default"); a StoragePool's `name` orders this after it. A change replaces. */
  pool?: pulumi.Input<string>;
  /** Volume name in the pool (default: the resource name). A change replaces. */
  name?: pulumi.Input<string>;
  /** Take over a volume of this name that already exists in the pool (docs/resources.md, "Adopting"); only recorded. */
  adopt?: pulumi.Input<boolean>;
}

/** The outputs Image and Volume share: a volume in a pool. */
export abstract class StorageResource extends pulumi.dynamic.Resource {
  public readonly name!: pulumi.Output<string>;
  public readonly pool!: pulumi.Output<string>;
  public readonly path!: pulumi.Output<string>;
  public readonly key!: pulumi.Output<string>;
  public readonly format!: pulumi.Output<"qcow2" | "raw">;
  public readonly capacityBytes!: pulumi.Output<number>;
  /** What proves the volume on the host is this one; passed on to the Volumes and Domains that use it. */
  public readonly identity!: pulumi.Output<{ marker?: string; mtime?: string } | undefined>;
  public readonly host!: pulumi.Output<HostArgs>;
}
