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
//
// The journal of a create under way (rollback.ts) proves a volume by one of these ids, never
// by its name or key (in a dir pool the key is just the path, which a volume made later
// under the same name shares): a bare UUID (the qcow2 marker), "mtime:<s.ns>" (nothing
// wrote it since), or "head:<token>" (its first bytes are that token's mark: a seed keeps
// it, an Image holds it until its upload's last write).
import * as crypto from "crypto";
import { Libvirt, VolumeRef } from "../../libvirt/api";
import { HEAD_BYTES } from "../../image/header";
import { readMarker, withMarker } from "../../image/qcow2-marker";
import { parseVolumeXml, VolumeFormat } from "../../xml/volume";
import { writeVolumeBytes } from "./write";

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
export async function headOf(lv: Libvirt, vol: VolumeRef, bytes = HEAD_BYTES): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of lv.downloadVolume(vol, { offset: 0n, length: BigInt(bytes) })) parts.push(chunk);
  return Buffer.concat(parts);
}

/** A new random token for a volume's head mark. */
export const newHeadToken = (): string => crypto.randomBytes(16).toString("hex");

/** The bytes a volume known by `head:<token>` starts with. */
export const headMark = (token: string): Buffer => Buffer.from(`pulumi-kvm ${token}\n`);

/** The journal id of a volume whose mtime is `mtime`, or undefined where libvirt reports none. */
export async function mtimeId(lv: Libvirt, vol: VolumeRef): Promise<string | undefined> {
  const { mtime } = parseVolumeXml(await lv.volumeXml(vol));
  return mtime ? `mtime:${mtime}` : undefined;
}

/** Older journals proved a seed by its content's sha256; read, never written any more. */
const CONTENT_MAX = 16 * 1024 * 1024;
async function contentDigest(lv: Libvirt, vol: VolumeRef): Promise<string | undefined> {
  if (Number((await lv.volumeInfo(vol)).capacity) > CONTENT_MAX) return undefined;
  const hash = crypto.createHash("sha256");
  for await (const chunk of lv.downloadVolume(vol, { maxBuffered: CONTENT_MAX })) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * What a journal id says of `vol` (see the top of this file); "a|b": either proves it.
 * "unknown": the volume carries no mark at all where one was to be (the link broke between
 * its create and the first write), so nothing tells whose it is.
 */
export async function judge(lv: Libvirt, vol: VolumeRef, id: string): Promise<Verdict | "unknown"> {
  const verdicts: (Verdict | "unknown")[] = [];
  for (const one of id.split("|")) {
    const verdict = await judgeOne(lv, vol, one);
    if (verdict === "mine") return verdict;
    verdicts.push(verdict);
  }
  return verdicts.includes("other") ? "other" : "unknown";
}

/** Whether `vol` is the volume a journal id names. */
export async function proves(lv: Libvirt, vol: VolumeRef, id: string): Promise<boolean> {
  return (await judge(lv, vol, id)) === "mine";
}

async function judgeOne(lv: Libvirt, vol: VolumeRef, id: string): Promise<Verdict | "unknown"> {
  const [kind, value] = id.includes(":") ? [id.slice(0, id.indexOf(":")), id.slice(id.indexOf(":") + 1)] : ["marker", id];
  const mineIf = (yes: boolean): Verdict => (yes ? "mine" : "other");
  switch (kind) {
    case "mtime":
      return mineIf(parseVolumeXml(await lv.volumeXml(vol)).mtime === value);
    case "head": {
      const mark = headMark(value);
      const head = await headOf(lv, vol, mark.length);
      return head.equals(mark) ? "mine" : head.every((b) => b === 0) ? "unknown" : "other";
    }
    case "sha256":
      return mineIf((await contentDigest(lv, vol)) === value);
    default: {
      const marker = await markerOf(lv, vol);
      return marker === undefined ? "unknown" : mineIf(marker === value);
    }
  }
}

/** Writes `marker` into a qcow2 volume the provider just made (no VM has it open yet). */
export async function writeMarker(lv: Libvirt, vol: VolumeRef, marker: string): Promise<void> {
  await writeVolumeBytes(lv, vol, 0, withMarker(await headOf(lv, vol), marker));
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

/**
 * Whether `vol` is the volume a program passed with its recorded identity (a disk or a
 * copy's source): refuted only by a marker or an mtime; a shape proves nothing here (a raw
 * volume's size changes as it grows), nor does a volume passed by name with none.
 */
export async function passedAsRecorded(lv: Libvirt, vol: VolumeRef, identity: VolumeIdentity | undefined): Promise<boolean> {
  if (!identity?.marker && !identity?.mtime) return true;
  return (await identify(lv, vol, { identity, format: "qcow2", capacityBytes: 0 })) === "mine";
}

/** The identity a volume gets when made: a marker for a qcow2 Volume, its mtime for what is never written again, else its shape. */
export function identityKind(kind: "image" | "seed" | "volume", format: VolumeFormat, adopted: boolean): "marker" | "mtime" | "shape" {
  if (kind !== "volume") return "mtime";
  return format === "qcow2" && !adopted ? "marker" : "shape";
}
