// The Volume's properties, declared once (properties.ts): a larger capacity grows it in
// place, a smaller one or another source replaces it.
import type { HostConfig } from "../../ssh/host";
import { isUnknown } from "../../resources/unknown";
import { parseSize } from "../../units";
import { inPoolProperties } from "../image/declaration";
import { adoptProperty, Declaration } from "../../resources/properties";
import type { VolumeFormat } from "../../xml/volume";
import type { VolumeIdentity } from "./identity";

export interface VolumeInputs {
  host: HostConfig;
  pool: string;
  name: string;
  resourceName?: string;
  /** Name of the backing volume (an Image) in the same pool. */
  baseImage?: string;
  /** Name of a volume in the same pool whose content is copied (a full, independent copy). */
  cloneOf?: string;
  /**
   * The format of the volume baseImage or cloneOf names: recorded by that Image or Volume
   * (the SDK passes it), or declared by the program for a volume given by name. Never
   * probed from the file. Required with either.
   */
  sourceFormat?: VolumeFormat;
  /** The base image's virtual size when the program could read it (a local file): preview refuses a smaller capacity. */
  baseCapacity?: number;
  /** What proves the volume baseImage or cloneOf names is the Image or Volume the stack made (the SDK passes it). */
  sourceIdentity?: VolumeIdentity;
  adopt?: boolean;
  /** Bytes; given as "20GiB" or a number of bytes (normalised to bytes by check). */
  capacity?: number | string;
  format?: VolumeFormat;
}

export interface VolumeOutputs extends VolumeInputs {
  kvmKind: "Volume";
  path: string;
  key: string;
  format: VolumeFormat;
  capacityBytes: number;
  /** An overlay's base as it was made: the chain a Domain spells out for this disk. */
  backing?: { path: string; format: VolumeFormat };
  /** What proves the volume on the host is this one (volume-identity.ts); absent in records of older versions. */
  identity?: VolumeIdentity;
}

/** A capacity's bytes, however written ("8MiB" as an import writes it, or bytes as check records it). */
function bytesOf(v: number | string | undefined): number | undefined {
  if (v === undefined || isUnknown(v)) return undefined;
  const s = parseSize(v);
  return "bytes" in s ? s.bytes : undefined;
}

/** Shrinking loses data: compared with what was asked before, not libvirt's rounded size (with none asked, the image's size). */
function shrinks(olds: VolumeOutputs, news: VolumeInputs): boolean {
  const now = bytesOf(news.capacity);
  if (now === undefined) return false;
  return now < (bytesOf(olds.capacity) ?? olds.capacityBytes);
}

export const volumeDeclaration: Declaration<VolumeInputs, VolumeOutputs> = {
  kind: "Volume",
  doc: "A disk: blank, a copy-on-write overlay of an Image, or a full copy of another volume",
  namedBy: ["name", "pool"],
  outputs: {
    path: { type: "string", doc: "the volume's file on the host" },
    key: { type: "string", doc: "libvirt's key of the volume" },
    capacityBytes: { type: "number", doc: "the virtual size in bytes, as libvirt rounded it" },
    backing: { type: "Backing", doc: "an overlay's base as it was made: the chain a Domain spells out for this disk", optional: true },
    identity: { type: "VolumeIdentity", doc: "what proves the volume on the host is the one made", internal: true, optional: true },
  },
  properties: {
    ...inPoolProperties(),
    baseImage: {
      type: "Image | string",
      doc: "an `Image`, or the name of a volume in the same pool: a copy-on-write qcow2 overlay over it. An `Image` brings what proves its volume: one removed and made again by someone else under its name is refused",
      change: "replace",
    },
    cloneOf: {
      type: "Image | Volume | string",
      doc: "an `Image`, a `Volume`, or the name of a volume in the same pool: a full, independent copy made on the host (libvirt's create-from; a raw source becomes qcow2 unless `format` says raw). Not with `baseImage`",
      change: "replace",
    },
    sourceFormat: {
      type: '"qcow2" | "raw"',
      doc: "the format of the volume `baseImage` or `cloneOf` names. **Required when that volume is given by name** ([what the provider trusts](#what-the-provider-trusts)); it only confirms the source's, so a change of it alone changes nothing",
      defaultDoc: "the Image's or Volume's recorded format",
      hint: true,
      change: "record",
    },
    baseCapacity: { type: "number", doc: "the base image's virtual size, when the SDK could read the local file", hint: true, bySdk: true, change: "record" },
    sourceIdentity: {
      type: "VolumeIdentity",
      doc: "what proves the volume `baseImage` or `cloneOf` names is the Image or Volume the stack made",
      hint: true,
      bySdk: true,
      change: "record",
    },
    capacity: {
      type: 'number | string ("20GiB", or bytes)',
      doc: "may not be smaller than the image's (over an Image from a local file, `pulumi preview` already refuses a smaller one, naming both sizes: the SDK reads the file's header); required for a blank volume. A larger one grows the volume in place",
      defaultDoc: "the image's (or source's) virtual size",
      change: "live",
      same: (o, n) => bytesOf(o.capacity) === bytesOf(n.capacity),
      replaceWhen: { doc: "a smaller one (shrinking loses data)", test: shrinks },
    },
    format: { type: '"qcow2" | "raw"', doc: '`"raw"` for blank volumes and copies', default: "qcow2", change: "replace" },
    adopt: adoptProperty("a volume of that name already in the pool: its format and base must match; a larger capacity grows it"),
  },
};

/** The outputs of a created volume: its inputs as checked and what libvirt made of them. */
export function volumeOutputs(
  inputs: VolumeInputs,
  made: { path: string; key: string; capacityBytes: number },
  format: VolumeFormat,
  backing: VolumeOutputs["backing"],
  identity: VolumeIdentity,
): VolumeOutputs {
  return { ...inputs, kvmKind: "Volume", path: made.path, key: made.key, format, capacityBytes: made.capacityBytes, ...(backing ? { backing } : {}), identity };
}
