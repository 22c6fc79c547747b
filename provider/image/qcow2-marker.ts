// The identity pulumi-kvm writes into the header of a qcow2 volume it made: a header
// extension of its own type holding a UUID. The header is qemu's, not the guest's disk,
// so no guest can write it; qemu keeps extensions it does not know when it rewrites a
// header (a resize, a snapshot), and libvirt's reader skips them. A raw volume has no
// such place: its every byte is the guest's.
import { uuidBytes, uuidText } from "../uuid";

/** The extension's type: "kvm1". */
export const MARKER_EXTENSION = 0x6b766d31;
const UUID_BYTES = 16;
const QCOW2_MAGIC = 0x514649fb;

interface Layout {
  /** Where the extensions start (the end of the fixed header). */
  start: number;
  /** The extensions as they are, each { type, bytes (type, length, padded data) }. */
  extensions: { type: number; bytes: Buffer }[];
  /** The backing file name, if the image has one. */
  backing?: Buffer;
  /** The header cluster's size: everything above must fit in it. */
  clusterSize: number;
}

const align8 = (n: number) => (n + 7) & ~7;

/** The header's layout from its first bytes; undefined when they are not a qcow2 header. */
function layoutOf(head: Buffer): Layout | undefined {
  if (head.length < 104 || head.readUInt32BE(0) !== QCOW2_MAGIC) return undefined;
  const version = head.readUInt32BE(4);
  const start = version >= 3 ? head.readUInt32BE(100) : 72;
  const clusterSize = 2 ** head.readUInt32BE(20);
  const limit = Math.min(head.length, clusterSize);
  const extensions: Layout["extensions"] = [];
  let at = start;
  for (;;) {
    if (at + 8 > limit) return undefined;
    const type = head.readUInt32BE(at);
    const length = head.readUInt32BE(at + 4);
    if (type === 0) break;
    const end = at + 8 + align8(length);
    if (end > limit) return undefined;
    extensions.push({ type, bytes: head.subarray(at, end) });
    at = end;
  }
  const backingOffset = Number(head.readBigUInt64BE(8));
  const backingSize = head.readUInt32BE(16);
  if (backingOffset && backingOffset + backingSize > limit) return undefined;
  return { start, extensions, clusterSize, backing: backingOffset ? head.subarray(backingOffset, backingOffset + backingSize) : undefined };
}

/** The UUID of pulumi-kvm's extension in a qcow2 header's first bytes, if it has one. */
export function readMarker(head: Buffer): string | undefined {
  const ext = layoutOf(head)?.extensions.find((e) => e.type === MARKER_EXTENSION);
  return ext && ext.bytes.readUInt32BE(4) === UUID_BYTES ? uuidText(ext.bytes.subarray(8, 8 + UUID_BYTES)) : undefined;
}

/**
 * The header's first bytes rewritten with the extension holding `uuid` (replacing an
 * earlier one): the other extensions as they were, then ours, the end marker, and the
 * backing file name moved behind them (its offset updated). Write them at offset 0.
 */
export function withMarker(head: Buffer, uuid: string): Buffer {
  const layout = layoutOf(head);
  if (!layout) throw new Error("not a qcow2 header, or one whose extensions do not fit its first cluster");
  const ours = Buffer.alloc(8 + UUID_BYTES);
  ours.writeUInt32BE(MARKER_EXTENSION, 0);
  ours.writeUInt32BE(UUID_BYTES, 4);
  uuidBytes(uuid).copy(ours, 8);
  const fixed = Buffer.from(head.subarray(0, layout.start));
  const extensions = [...layout.extensions.filter((e) => e.type !== MARKER_EXTENSION).map((e) => e.bytes), ours, Buffer.alloc(8)];
  const backingAt = layout.start + extensions.reduce((n, e) => n + e.length, 0);
  if (layout.backing) fixed.writeBigUInt64BE(BigInt(backingAt), 8);
  const out = Buffer.concat([fixed, ...extensions, layout.backing ?? Buffer.alloc(0)]);
  if (out.length > layout.clusterSize) throw new Error("the qcow2 header has no room for pulumi-kvm's identity in its first cluster");
  return out;
}
