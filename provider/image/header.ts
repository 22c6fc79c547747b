// Disk image format from the file's header, never from its name: qcow2 (virtual size
// from the header), raw otherwise; other known formats are refused with the fix. A qcow2
// image that names a backing file or an external data file is refused too: libvirt would
// follow the name and hand qemu a file of the host's (/etc/shadow, another VM's disk).
import * as fs from "fs";

export interface ImageHeader {
  format: "qcow2" | "raw";
  /** The guest-visible disk size. */
  virtualSize: number;
  fileSize: number;
}

const OTHER_FORMATS: { name: string; test: (h: Buffer) => boolean }[] = [
  { name: "vmdk", test: (h) => h.subarray(0, 4).toString("latin1") === "KDMV" || h.subarray(0, 21).toString("latin1") === "# Disk DescriptorFile" },
  { name: "vdi", test: (h) => h.length >= 68 && h.readUInt32LE(64) === 0xbeda107f },
  { name: "vhdx", test: (h) => h.subarray(0, 8).toString("latin1") === "vhdxfile" },
  { name: "vpc (vhd)", test: (h) => h.subarray(0, 8).toString("latin1") === "conectix" },
  { name: "qed", test: (h) => h.subarray(0, 4).toString("latin1") === "QED\0" },
  { name: "xz archive", test: (h) => h.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) },
  { name: "gzip archive", test: (h) => h[0] === 0x1f && h[1] === 0x8b },
  { name: "bzip2 archive", test: (h) => h.subarray(0, 3).toString("latin1") === "BZh" },
  { name: "zstd archive", test: (h) => h.readUInt32LE(0) === 0xfd2fb528 },
];

export class UnsupportedImageFormat extends Error {}

/** qcow2 incompatible feature bit: the guest data lives in an external file named in a header extension. */
const QCOW2_INCOMPAT_DATA_FILE = 1n << 2n;
/** qemu's own bound on a backing file name (qcow2 spec: at most 1023 bytes). */
const BACKING_NAME_MAX = 1023;

/** The start of an image that holds its header (and, as qemu writes it, a qcow2 backing file name). */
export const HEAD_BYTES = 64 * 1024;

/** What a qcow2 header (`head`) names outside the image itself: a backing file, an external data file. */
export function qcow2ExternalFiles(head: Buffer): { backing?: string; dataFile: boolean } {
  const version = head.readUInt32BE(4);
  const backingOffset = head.readBigUInt64BE(8);
  const backingSize = head.readUInt32BE(16);
  let backing: string | undefined;
  if (backingOffset !== 0n) {
    const end = backingOffset + BigInt(backingSize);
    backing =
      backingSize > 0 && backingSize <= BACKING_NAME_MAX && end <= BigInt(head.length)
        ? head.subarray(Number(backingOffset), Number(end)).toString("utf8")
        : "(unreadable)";
  }
  const dataFile = version >= 3 && (head.readBigUInt64BE(72) & QCOW2_INCOMPAT_DATA_FILE) !== 0n;
  return { backing, dataFile };
}

/** Whether `head` starts as a qcow2 image does. */
export const isQcow2 = (head: Buffer): boolean => head.length >= 104 && head.subarray(0, 4).equals(Buffer.from([0x51, 0x46, 0x49, 0xfb]));

/** The size a qcow2 header gives its disk; undefined when the bytes are not a qcow2 header. */
export const qcow2VirtualSize = (head: Buffer): number | undefined => (isQcow2(head) ? Number(head.readBigUInt64BE(24)) : undefined);

/** Refuses a qcow2 header that points outside the image itself. */
function refuseExternalFiles(head: Buffer): void {
  const { backing, dataFile } = qcow2ExternalFiles(head);
  if (backing !== undefined) {
    throw new UnsupportedImageFormat(
      `the qcow2 image names a backing file (${JSON.stringify(backing)}), which libvirt would open on the host; ` +
        "a base image must stand alone: flatten it with qemu-img convert -O qcow2 IMAGE FLAT.qcow2",
    );
  }
  if (dataFile) {
    throw new UnsupportedImageFormat(
      "the qcow2 image keeps its data in an external data file, which libvirt would open on the host; " +
        "convert it to a self-contained image with qemu-img convert -O qcow2 IMAGE FLAT.qcow2",
    );
  }
}

/**
 * The format of an image from its first bytes (`head`: up to HEAD_BYTES of them, from a
 * file or the start of a download); `fileSize` is its whole length when known.
 */
export function parseImageHeader(head: Buffer, fileSize: number): ImageHeader {
  const h = head.length >= 512 ? head : Buffer.concat([head, Buffer.alloc(512 - head.length)]);
  if (isQcow2(h)) {
    const version = h.readUInt32BE(4);
    if (version < 2) throw new UnsupportedImageFormat(`qcow version ${version} is too old; convert it with qemu-img convert -O qcow2`);
    refuseExternalFiles(h);
    return { format: "qcow2", virtualSize: Number(h.readBigUInt64BE(24)), fileSize };
  }
  const other = OTHER_FORMATS.find((f) => f.test(h));
  if (other) {
    throw new UnsupportedImageFormat(
      `the image is ${other.name}, which libvirt volumes here do not take; ${
        other.name.endsWith("archive") ? "decompress it first" : `convert it with qemu-img convert -f ${other.name.split(" ")[0]} -O qcow2`
      }`,
    );
  }
  return { format: "raw", virtualSize: fileSize, fileSize };
}

export function readImageHeader(file: string): ImageHeader {
  const fileSize = fs.statSync(file).size;
  const head = Buffer.alloc(Math.min(HEAD_BYTES, fileSize));
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return parseImageHeader(head, fileSize);
}
