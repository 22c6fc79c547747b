// An image's bytes as upload chunks, from a local file or any stream of buffers (a
// download). Sparse: runs of zero blocks become holes, coalesced across reads, so an
// image that is mostly empty sends a fraction of its size and the daemon sees one hole
// per run of zeros.
import * as fs from "fs";
import type { UploadChunk } from "../rpc/stream";

export interface ChunkOptions {
  sparse: boolean;
  /** Bytes per read of a file. */
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

/**
 * A file's bytes in reads of `readSize`, with `ahead` more reads already running while
 * the consumer works on one: reading the holes of a sparse file (as zeros) then overlaps
 * sending its data, instead of alternating with it. With `reuse`, `ahead + 1` buffers
 * take turns: a consumer must be done with one before it asks for the next (an upload
 * copies each into its frames), and reading a gigabyte makes no garbage.
 */
export async function* fileReads(file: string, opts: { readSize?: number; reuse?: boolean; ahead?: number } = {}): AsyncGenerator<Buffer> {
  const readSize = opts.readSize ?? 4 * 1024 * 1024;
  const ahead = Math.max(1, opts.ahead ?? 4);
  const fh = await fs.promises.open(file, "r");
  const size = (await fh.stat()).size;
  const spare: Buffer[] = [];
  let offset = 0;
  const queue: { buf: Buffer; read: Promise<{ bytesRead: number }> }[] = [];
  const refill = () => {
    while (queue.length < ahead && offset < size) {
      const buf = spare.pop() ?? Buffer.allocUnsafe(readSize);
      // positioned: several reads are in flight at once
      queue.push({ buf, read: fh.read(buf, 0, Math.min(readSize, size - offset), offset) });
      offset += readSize;
    }
  };
  try {
    refill();
    while (queue.length > 0) {
      const { buf, read } = queue.shift()!;
      const { bytesRead } = await read;
      if (bytesRead === 0) return;
      refill();
      yield buf.subarray(0, bytesRead);
      // the consumer asked for the next one: it is done with this buffer
      if (opts.reuse) spare.push(buf);
    }
  } finally {
    await Promise.all(queue.map((q) => q.read.catch(() => undefined)));
    await fh.close();
  }
}

/** Buffers as upload chunks: all data, or (sparse) data runs and coalesced holes. */
export async function* uploadChunks(source: AsyncIterable<Buffer>, opts: { sparse: boolean; blockSize?: number }): AsyncGenerator<UploadChunk> {
  const block = opts.blockSize ?? 4096;
  let zero = Buffer.alloc(0);
  let hole = 0;
  for await (const data of source) {
    if (!opts.sparse) {
      yield { data };
      continue;
    }
    if (zero.length < Math.max(data.length, block)) zero = Buffer.alloc(Math.max(data.length, block));
    // split the buffer into alternating data and zero runs
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
}

/** A file as upload chunks; each chunk is valid until the next is asked for. */
export function fileChunks(file: string, opts: ChunkOptions): AsyncGenerator<UploadChunk> {
  return uploadChunks(fileReads(file, { readSize: opts.readSize, reuse: true }), opts);
}
