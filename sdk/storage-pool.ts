import * as pulumi from "@pulumi/pulumi";
import { hostInput, HostArgs } from "./host";
import { providerShim } from "./shim";
import { MODULE } from "./resource-type";

export interface StoragePoolArgs {
  host: pulumi.Input<HostArgs>;
  /** Pool name (default: the resource name). */
  name?: pulumi.Input<string>;
  /** "dir" (the default): volumes are files in a directory of the host. */
  type?: pulumi.Input<"dir">;
  /** The pool's directory on the host; made when missing. */
  path: pulumi.Input<string>;
  /** Started with libvirtd (default true). */
  autostart?: pulumi.Input<boolean>;
  /** Take over a pool of this name that already exists on the host. */
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
      {
        ...args,
        host: hostInput(args.host),
        resourceName: name,
        name: args.name,
        autostart: args.autostart,
        kvmKind: "StoragePool",
        uuid: undefined,
        state: undefined,
        capacityBytes: undefined,
        availableBytes: undefined,
      },
      opts,
      MODULE,
      "StoragePool",
    );
  }
}
