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

export async function* fileChunks(file: string, opts: ChunkOptions): AsyncGenerator<UploadChunk> {
  const readSize = opts.readSize ?? 1024 * 1024;
  const block = opts.blockSize ?? 4096;
  const zero = Buffer.alloc(block);
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
      let runStart = 0;
      for (let at = 0; at < data.length; at += block) {
        const end = Math.min(at + block, data.length);
        const isZero = data.compare(zero, 0, end - at, at, end) === 0;
        if (isZero) {
          if (at > runStart) {
            if (hole) { yield { hole }; hole = 0; }
            yield { data: data.subarray(runStart, at) };
          }
          hole += end - at;
          runStart = end;
        }
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
