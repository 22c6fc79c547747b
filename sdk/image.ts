import * as pulumi from "@pulumi/pulumi";
import { HostArgs, hostInput } from "./host";
import { providerShim } from "./shim";

export interface ImageSourceArgs {
  /** http(s) URL, downloaded by the client then uploaded. */
  url?: pulumi.Input<string>;
  /** A local file. */
  path?: pulumi.Input<string>;
  /** Expected sha256 (hex); verified before anything is created on the host. */
  sha256?: pulumi.Input<string>;
}

export interface ImageArgs {
  host: pulumi.Input<HostArgs>;
  /** Storage pool (default "default"). */
  pool?: pulumi.Input<string>;
  /** Volume name in the pool (default: the resource name). */
  name?: pulumi.Input<string>;
  source: pulumi.Input<ImageSourceArgs>;
  /** Asserts the format; it is always read from the image header. */
  format?: pulumi.Input<"qcow2" | "raw">;
}

/** A base disk image uploaded into a storage pool. */
export class Image extends pulumi.dynamic.Resource {
  public readonly name!: pulumi.Output<string>;
  public readonly pool!: pulumi.Output<string>;
  public readonly path!: pulumi.Output<string>;
  public readonly key!: pulumi.Output<string>;
  public readonly format!: pulumi.Output<"qcow2" | "raw">;
  public readonly capacityBytes!: pulumi.Output<number>;
  public readonly sha256!: pulumi.Output<string>;
  public readonly host!: pulumi.Output<HostArgs>;

  constructor(name: string, args: ImageArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerShim, name, {
      ...args, host: hostInput(args.host), resourceName: name,
      kvmKind: "Image", path: undefined, key: undefined, capacityBytes: undefined, sha256: undefined,
      format: args.format, name: args.name,
    }, opts);
  }
}
