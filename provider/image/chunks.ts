// Reads a local file as upload chunks. Sparse: runs of zero blocks become holes, so
// an image that is mostly empty sends a fraction of its size.
import * as fs from "fs";
import type { UploadChunk } from "../rpc/stream";

export interface ChunkOptions {
  sparse: boolean;
  /** Bytes per read. */
  readSize?: number;
  /** Granularity of hole detection. */
  blockSize?: number;
}

/** Coarse blocks tested first: one native compare clears 64 KiB of zeros or data. */
const COARSE = 64 * 1024;

/** Marks each `block`-sized piece of `data` as zero or not, testing coarse spans first. */
function zeroMap(data: Buffer, block: number, zero: Buffer): boolean[] {
  const blocks = Math.ceil(data.length / block);
  const isZero = (at: number, len: number) => data.compare(zero, 0, len, at, at + len) === 0;
  if (isZero(0, data.length)) return new Array(blocks).fill(true);
  const out: boolean[] = new Array(blocks);
  const coarse = Math.max(block, COARSE - (COARSE % block));
  for (let at = 0; at < data.length; at += coarse) {
    const end = Math.min(at + coarse, data.length);
    const allZero = isZero(at, end - at);
    for (let b = at; b < end; b += block) out[b / block] = allZero || isZero(b, Math.min(block, end - b));
  }
  return out;
}

export async function* fileChunks(file: string, opts: ChunkOptions): AsyncGenerator<UploadChunk> {
  const readSize = opts.readSize ?? 1024 * 1024;
  const block = opts.blockSize ?? 4096;
  const zero = Buffer.alloc(Math.max(readSize, block));
  const fh = await fs.promises.open(file, "r");
  let hole = 0;
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(readSize);
      const { bytesRead } = await fh.read(buf, 0, readSize, null);
      if (bytesRead === 0) break;
      const data = buf.subarray(0, bytesRead);
      if (!opts.sparse) {
        yield { data };
        continue;
      }
      // split the read into alternating data and zero runs
      const zeros = zeroMap(data, block, zero);
      let runStart = 0;
      for (let i = 0; i < zeros.length; i++) {
        if (!zeros[i]) continue;
        const at = i * block;
        if (at > runStart) {
          if (hole) { yield { hole }; hole = 0; }
          yield { data: data.subarray(runStart, at) };
        }
        hole += Math.min(at + block, data.length) - at;
        runStart = Math.min(at + block, data.length);
      }
      if (runStart < data.length) {
        if (hole) { yield { hole }; hole = 0; }
        yield { data: data.subarray(runStart) };
      }
    }
    if (hole) yield { hole };
  } finally {
    await fh.close();
  }
}
