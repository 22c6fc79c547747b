// Disk image format from the file's header, never from its name: qcow2 (virtual size
// from the header), raw otherwise; other known formats are refused with the fix.
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

export function readImageHeader(file: string): ImageHeader {
  const fileSize = fs.statSync(file).size;
  const head = Buffer.alloc(512);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.subarray(0, 4).equals(Buffer.from([0x51, 0x46, 0x49, 0xfb]))) {
    const version = head.readUInt32BE(4);
    if (version < 2) throw new UnsupportedImageFormat(`qcow version ${version} is too old; convert it with qemu-img convert -O qcow2`);
    return { format: "qcow2", virtualSize: Number(head.readBigUInt64BE(24)), fileSize };
  }
  const other = OTHER_FORMATS.find((f) => f.test(head));
  if (other) {
    throw new UnsupportedImageFormat(`the image is ${other.name}, which libvirt volumes here do not take; ${
      other.name.endsWith("archive") ? "decompress it first" : `convert it with qemu-img convert -f ${other.name.split(" ")[0]} -O qcow2`}`);
  }
  return { format: "raw", virtualSize: fileSize, fileSize };
}
