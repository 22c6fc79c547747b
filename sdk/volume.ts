import * as pulumi from "@pulumi/pulumi";
import { StorageArgs, StorageResource } from "./storage";
import { Image } from "./image";
import { providerShim } from "./shim";
import { MODULE, registered, withLegacyAlias } from "./resource-type";

export interface VolumeArgs extends StorageArgs {
  /** Copy-on-write base: an Image, or the name of a volume in the same pool. A change replaces. */
  baseImage?: Image | pulumi.Input<string>;
  /** A full, independent copy of an Image, a Volume or a named volume of the same pool, made on the host. A change replaces. */
  cloneOf?: Image | Volume | pulumi.Input<string>;
  /** "20GiB", "512MiB" or bytes (default: the image's size). A larger one grows the volume in place (a running VM's disk live); a smaller one replaces. */
  capacity?: pulumi.Input<string | number>;
  /** "qcow2" (default) or "raw" (blank volumes and copies). A change replaces. */
  format?: pulumi.Input<"qcow2" | "raw">;
  /**
   * The format of the volume `baseImage` or `cloneOf` names, required when it is given by
   * name (an Image or Volume brings its recorded format). pulumi-kvm never takes a format
   * from the file's header: a guest can write any header into its disk. Not compared: it
   * only confirms the source's.
   */
  sourceFormat?: pulumi.Input<"qcow2" | "raw">;
}

export type Backing = { path: string; format: "qcow2" | "raw" };

/** A disk: blank, a copy-on-write overlay of an Image, or a full copy of another volume. */
export class Volume extends StorageResource {
  public readonly baseImage!: pulumi.Output<string | undefined>;
  public readonly cloneOf!: pulumi.Output<string | undefined>;
  /** An overlay's base as it was made (its path and format). */
  public readonly backing!: pulumi.Output<Backing | undefined>;
  /** The base a Domain spells out for this disk: the Image's record, else this volume's own. */
  public readonly diskBacking: pulumi.Output<Backing | undefined>;

  constructor(name: string, args: VolumeArgs, opts?: pulumi.CustomResourceOptions) {
    const image = args.baseImage instanceof Image ? args.baseImage : undefined;
    const source = image ?? (args.cloneOf instanceof StorageResource ? args.cloneOf : undefined);
    const base = image ? image.name : (args.baseImage as pulumi.Input<string> | undefined);
    const clone = args.cloneOf instanceof StorageResource ? args.cloneOf.name : args.cloneOf;
    super(
      providerShim,
      name,
      registered("Volume", name, args, ["path", "key", "capacityBytes", "backing", "format", "identity"], {
        baseImage: base,
        cloneOf: clone,
        sourceFormat: args.sourceFormat ?? source?.format,
        sourceIdentity: source?.identity,
        ...(image ? { baseCapacity: image.localVirtualSize } : {}),
      }),
      withLegacyAlias(opts),
      MODULE,
      "Volume",
    );
    // an Image's record serves volumes made before this output existed too
    this.diskBacking = image ? pulumi.all([image.path, image.format]).apply(([path, format]) => ({ path, format })) : this.backing;
  }
}
