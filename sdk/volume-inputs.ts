// What the Volume class does beyond registering its inputs (its class is generated:
// codegen/typescript.ts): an Image or Volume given as `baseImage` or `cloneOf` goes as its
// name, with its recorded format and identity, so nothing is taken from the file's header.
import * as pulumi from "@pulumi/pulumi";
import { Image } from "./image";
import type { Backing, VolumeIdentity } from "./types";

type Format = "qcow2" | "raw";

/** A Volume or an Image: a resource recording its volume's name, format and identity. */
interface RecordedVolume {
  name: pulumi.Output<string>;
  format: pulumi.Output<Format | undefined>;
  identity: pulumi.Output<VolumeIdentity | undefined>;
}

interface VolumeSources {
  baseImage?: Image | pulumi.Input<string>;
  cloneOf?: RecordedVolume | pulumi.Input<string>;
  sourceFormat?: pulumi.Input<Format>;
}

// the args' union admits a resource only where a Volume or Image may stand
const isRecorded = (v: unknown): v is RecordedVolume => v instanceof pulumi.CustomResource;

export function volumeInputs(args: VolumeSources): pulumi.Inputs {
  const image = args.baseImage instanceof Image ? args.baseImage : undefined;
  const source = image ?? (isRecorded(args.cloneOf) ? args.cloneOf : undefined);
  return {
    baseImage: image ? image.name : args.baseImage,
    cloneOf: isRecorded(args.cloneOf) ? args.cloneOf.name : args.cloneOf,
    sourceFormat: args.sourceFormat ?? source?.format,
    sourceIdentity: source?.identity,
    ...(image ? { baseCapacity: image.localVirtualSize } : {}),
  };
}

/** The base a Domain spells out for this disk: an Image's record serves volumes made before the `backing` output existed too. */
export function diskBacking(args: VolumeSources, volume: { backing: pulumi.Output<Backing | undefined> }): pulumi.Output<Backing | undefined> {
  const image = args.baseImage instanceof Image ? args.baseImage : undefined;
  return image ? pulumi.all([image.path, image.format]).apply(([path, format]) => ({ path, format })) : volume.backing;
}
