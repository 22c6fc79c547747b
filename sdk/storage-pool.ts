import * as pulumi from "@pulumi/pulumi";
import { HostArgs } from "./host";
import { providerShim } from "./shim";
import { MODULE, registered } from "./resource-type";

export interface StoragePoolArgs {
  /** The libvirt host and how to log in (docs/connection.md). Another address, port, user, socket or URI replaces the resource; a login change is only recorded. */
  host: pulumi.Input<HostArgs>;
  /** Pool name (default: the resource name). A change replaces. */
  name?: pulumi.Input<string>;
  /** "dir" (the default): volumes are files in a directory of the host. A change replaces. */
  type?: pulumi.Input<"dir">;
  /** The pool's directory on the host, made when missing. A change replaces. */
  path: pulumi.Input<string>;
  /** Started with libvirtd (default true); changes in place. */
  autostart?: pulumi.Input<boolean>;
  /** Take over a pool of this name that already exists on the host; only recorded. */
  adopt?: pulumi.Input<boolean>;
}

/** A libvirt storage pool: defined, built, started and autostarted. Images and Volumes go in with `pool: pool.name`. */
export class StoragePool extends pulumi.dynamic.Resource {
  public readonly name!: pulumi.Output<string>;
  public readonly uuid!: pulumi.Output<string>;
  public readonly path!: pulumi.Output<string>;
  /** "running", "inactive", … as libvirt reports it. */
  public readonly state!: pulumi.Output<string>;
  public readonly capacityBytes!: pulumi.Output<number>;
  public readonly availableBytes!: pulumi.Output<number>;
  public readonly autostart!: pulumi.Output<boolean>;
  public readonly host!: pulumi.Output<HostArgs>;

  constructor(name: string, args: StoragePoolArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim,
      name,
      registered("StoragePool", name, args, ["autostart", "uuid", "state", "capacityBytes", "availableBytes"]),
      opts,
      MODULE,
      "StoragePool",
    );
  }
}
