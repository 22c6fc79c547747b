import * as pulumi from "@pulumi/pulumi";
import { hostInput } from "./host";
import { StorageArgs, StorageResource } from "./storage";
import { Image } from "./image";
import { providerShim } from "./shim";
import { MODULE, withLegacyAlias } from "./resource-type";

export interface VolumeArgs extends StorageArgs {
  /** Copy-on-write base: an Image, or the name of a volume in the same pool. */
  baseImage?: Image | pulumi.Input<string>;
  /** "20GiB", "512MiB" or bytes; defaults to the image's size. Growing resizes in place. */
  capacity?: pulumi.Input<string | number>;
  format?: pulumi.Input<"qcow2" | "raw">;
}

/** A disk: blank, or a copy-on-write overlay of an Image. */
export class Volume extends StorageResource {
  public readonly baseImage!: pulumi.Output<string | undefined>;

  constructor(name: string, args: VolumeArgs, opts?: pulumi.CustomResourceOptions) {
    const base = args.baseImage instanceof Image ? args.baseImage.name : args.baseImage;
    super(providerShim, name, {
      ...args, host: hostInput(args.host), baseImage: base, resourceName: name,
      kvmKind: "Volume", path: undefined, key: undefined, capacityBytes: undefined,
      format: args.format, name: args.name,
    }, withLegacyAlias(opts), MODULE, "Volume");
  }
}
