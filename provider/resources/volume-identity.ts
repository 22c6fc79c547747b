// Which volume on a host is the one a stack made. A volume's name is a label anyone can
// reuse, and libvirt keeps no UUID or metadata for a volume; so the provider records one
// of these, chosen by what the volume is:
//  - a qcow2 volume it made carries a UUID in its header (image/qcow2-marker.ts), chosen
//    before the volume exists, so the journal holds it too: proven or refuted;
//  - an Image and a seed are never written after their upload: their modification time
//    (nanoseconds) when the upload ended proves them;
//  - a raw Volume (every byte is its guest's) is known by its file's size, and an adopted
//    qcow2 (written by whoever uses it) by its format and size: a volume removed and made
//    again with the same format and size cannot be told apart (docs/resources.md).
// Records made before identities existed have none: their volume is taken by name, as then.
import * as crypto from "crypto";
import { Libvirt, VolumeRef } from "../libvirt/api";
import { HEAD_BYTES } from "../image/header";
import { readMarker, withMarker } from "../image/qcow2-marker";
import { parseVolumeXml, VolumeFormat } from "../xml/volume";

export interface VolumeIdentity {
  /** The UUID in the qcow2 header. */
  marker?: string;
  /** The modification time when the provider last wrote it ("seconds.nanoseconds"). */
  mtime?: string;
}

export type Verdict = "mine" | "other";

/** A new UUID for a qcow2 volume about to be made. */
export const newMarker = (): string => crypto.randomUUID();

/** The volume's first bytes (its header). */
async function headOf(lv: Libvirt, vol: VolumeRef): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of lv.downloadVolume(vol, { offset: 0n, length: BigInt(HEAD_BYTES) })) parts.push(chunk);
  return Buffer.concat(parts);
}

/** Writes `marker` into a qcow2 volume the provider just made (no VM has it open yet). */
export async function writeMarker(lv: Libvirt, vol: VolumeRef, marker: string): Promise<void> {
  const header = withMarker(await headOf(lv, vol), marker);
  await lv.uploadVolume(
    vol,
    (async function* () {
      yield { data: header };
    })(),
    { offset: 0n, length: BigInt(header.length) },
  );
}

/** The UUID in the volume's header, if it is a qcow2 with one. */
export async function markerOf(lv: Libvirt, vol: VolumeRef): Promise<string | undefined> {
  return readMarker(await headOf(lv, vol));
}

/** The identity of a volume never written after now: its modification time, or its shape where libvirt reports none. */
export function sealed(d: { mtime?: string }): VolumeIdentity {
  return d.mtime ? { mtime: d.mtime } : {};
}

interface RecordedVolume {
  identity?: VolumeIdentity;
  format: string;
  capacityBytes: number;
}

/**
 * Whether `vol`, found under the recorded name, is the recorded volume. A record with a
 * marker or an mtime is proven or refuted by it; one with neither (a raw or adopted
 * Volume: `identity: {}`) by its shape; one without identity (older versions) is taken.
 */
export async function identify(lv: Libvirt, vol: VolumeRef, recorded: RecordedVolume): Promise<Verdict> {
  const id = recorded.identity;
  if (!id) return "mine";
  if (id.marker) return (await markerOf(lv, vol)) === id.marker ? "mine" : "other";
  const d = parseVolumeXml(await lv.volumeXml(vol));
  if (id.mtime) return d.mtime === id.mtime ? "mine" : "other";
  // a raw file is as large as its disk, whatever header its guest wrote into it (libvirt's
  // reading of that header is not asked); a qcow2's header is qemu's, so its reading is
  if (recorded.format === "raw") return d.physicalBytes === recorded.capacityBytes ? "mine" : "other";
  return d.format === recorded.format && d.capacityBytes >= recorded.capacityBytes ? "mine" : "other";
}

/** The identity a volume gets when made: a marker for a qcow2 Volume, its mtime for what is never written again, else its shape. */
export function identityKind(kind: "image" | "seed" | "volume", format: VolumeFormat, adopted: boolean): "marker" | "mtime" | "shape" {
  if (kind !== "volume") return "mtime";
  return format === "qcow2" && !adopted ? "marker" : "shape";
}
