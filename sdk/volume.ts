import * as pulumi from "@pulumi/pulumi";
import { hostInput } from "./host";
import { StorageArgs, StorageResource } from "./storage";
import { Image } from "./image";
import { providerShim } from "./shim";
import { MODULE, withLegacyAlias } from "./resource-type";

export interface VolumeArgs extends StorageArgs {
  /** Copy-on-write base: an Image, or the name of a volume in the same pool. */
  baseImage?: Image | pulumi.Input<string>;
  /** A full, independent copy of an Image, a Volume or a named volume of the same pool, made on the host. */
  cloneOf?: Image | Volume | pulumi.Input<string>;
  /** "20GiB", "512MiB" or bytes; defaults to the image's size. Growing resizes in place. */
  capacity?: pulumi.Input<string | number>;
  format?: pulumi.Input<"qcow2" | "raw">;
}

/** A disk: blank, a copy-on-write overlay of an Image, or a full copy of another volume. */
export class Volume extends StorageResource {
  public readonly baseImage!: pulumi.Output<string | undefined>;
  public readonly cloneOf!: pulumi.Output<string | undefined>;

  constructor(name: string, args: VolumeArgs, opts?: pulumi.CustomResourceOptions) {
    const base = args.baseImage instanceof Image ? args.baseImage.name : args.baseImage;
    const clone = args.cloneOf instanceof StorageResource ? args.cloneOf.name : args.cloneOf;
    super(providerShim, name, {
      ...args, host: hostInput(args.host), baseImage: base, cloneOf: clone, resourceName: name,
      kvmKind: "Volume", path: undefined, key: undefined, capacityBytes: undefined,
      format: args.format, name: args.name,
    }, withLegacyAlias(opts), MODULE, "Volume");
  }
}
