// An image's bytes as upload chunks, from a local file or any stream of buffers (a
// download). Sparse: the file's holes (where the filesystem reports them) and runs of
// zero blocks become holes, coalesced across reads, so an image that is mostly empty
// sends a fraction of its size and the daemon sees one hole per run of zeros.
import * as fs from "fs";
import type { UploadChunk } from "../rpc/stream";
import { dataRanges } from "./file-extents";

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

/** A run of zeros known without reading it: a hole the filesystem reports. */
export interface Hole {
  hole: number;
}

export interface ReadOptions {
  /** Bytes per read. */
  readSize?: number;
  /** Reads running while the consumer works on one. */
  ahead?: number;
  /** Buffers take turns instead of a new one per read. */
  reuse?: boolean;
  /**
   * With `reuse`: each item, in order, once the consumer asked for the next (done with it).
   * A buffer is taken back only when given to `back` (later, or as another Buffer over
   * its memory: hash-thread.ts); reading goes on once the returned promise settles.
   */
  done?: (item: Buffer | Hole, back: (b: Buffer) => void) => void | Promise<void>;
}

/** What to read of a file: a hole to pass on, or a positioned read. */
type Span = Hole | { offset: number; length: number };

/** The spans of a file whose data lies in `ranges`, each read at most `readSize` long. */
function* spans(ranges: [number, number][], size: number, readSize: number): Generator<Span> {
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) yield { hole: start - at };
    for (at = start; at < end; at += readSize) yield { offset: at, length: Math.min(readSize, end - at) };
    at = end;
  }
  if (size > at) yield { hole: size - at };
}

/**
 * Positioned reads of `file`, with `ahead` more reads already running while the consumer
 * works on one: the file's reads overlap sending its data instead of alternating with it.
 * With `reuse`, `ahead + 1` buffers take turns: a consumer must be done with one before
 * it asks for the next (an upload copies each into its frames), and reading a gigabyte
 * makes no garbage.
 */
async function* readSpans(file: string, opts: ReadOptions, plan: (fd: number, size: number) => [number, number][]): AsyncGenerator<Buffer | Hole> {
  const readSize = opts.readSize ?? 4 * 1024 * 1024;
  const ahead = Math.max(1, opts.ahead ?? 4);
  const fh = await fs.promises.open(file, "r");
  const size = (await fh.stat()).size;
  const todo = spans(plan(fh.fd, size), size, readSize);
  const spare: Buffer[] = [];
  const queue: (Hole | { buf: Buffer; read: Promise<{ bytesRead: number }> })[] = [];
  let reading = 0;
  const refill = () => {
    while (reading < ahead) {
      const next = todo.next();
      if (next.done) return;
      const span = next.value;
      if ("hole" in span) {
        queue.push(span);
        continue;
      }
      // never from Node's shared pool: a buffer's memory may move to another thread (done)
      const buf = spare.pop() ?? Buffer.allocUnsafeSlow(readSize);
      queue.push({ buf, read: fh.read(buf, 0, span.length, span.offset) });
      reading++;
    }
  };
  try {
    refill();
    while (queue.length > 0) {
      const item = queue.shift()!;
      if ("hole" in item) {
        yield item;
        await opts.done?.(item, () => undefined);
        continue;
      }
      const { bytesRead } = await item.read;
      reading--;
      if (bytesRead === 0) return; // the file shrank meanwhile
      refill();
      const view = item.buf.subarray(0, bytesRead);
      yield view;
      // the consumer asked for the next one: it is done with this buffer
      if (!opts.reuse) continue;
      if (opts.done) await opts.done(view, (b) => spare.push(b));
      else spare.push(item.buf);
    }
  } finally {
    await Promise.all(queue.map((q) => ("read" in q ? q.read.catch(() => undefined) : Promise.resolve())));
    await fh.close();
  }
}

/** Every byte of a file, in order (its holes read as zeros). */
export function fileReads(file: string, opts: ReadOptions = {}): AsyncGenerator<Buffer> {
  return readSpans(file, opts, (_fd, size) => [[0, size]]) as AsyncGenerator<Buffer>;
}

/** A file's data, and its holes as holes where the filesystem reports them (file-extents.ts). */
export function fileData(file: string, opts: ReadOptions = {}): AsyncGenerator<Buffer | Hole> {
  return readSpans(file, opts, dataRanges);
}

/** Buffers (and known holes) as upload chunks: all data, or (sparse) data runs and coalesced holes. */
export async function* uploadChunks(source: AsyncIterable<Buffer | Hole>, opts: { sparse: boolean; blockSize?: number }): AsyncGenerator<UploadChunk> {
  const block = opts.blockSize ?? 4096;
  let zero = Buffer.alloc(0);
  let hole = 0;
  for await (const item of source) {
    if (!Buffer.isBuffer(item)) {
      if (opts.sparse) hole += item.hole;
      else yield* zeros(item.hole);
      continue;
    }
    const data = item;
    if (!opts.sparse) {
      yield { data };
      continue;
    }
    if (zero.length < Math.max(data.length, block)) zero = Buffer.alloc(Math.max(data.length, block));
    // split the buffer into alternating data and zero runs
    const zeroBlocks = zeroMap(data, block, zero);
    let runStart = 0;
    for (let i = 0; i < zeroBlocks.length; i++) {
      if (!zeroBlocks[i]) continue;
      const at = i * block;
      if (at > runStart) {
        if (hole) {
          yield { hole };
          hole = 0;
        }
        yield { data: data.subarray(runStart, at) };
      }
      hole += Math.min(at + block, data.length) - at;
      runStart = Math.min(at + block, data.length);
    }
    if (runStart < data.length) {
      if (hole) {
        yield { hole };
        hole = 0;
      }
      yield { data: data.subarray(runStart) };
    }
  }
  if (hole) yield { hole };
}

/** `length` zero bytes as data, for an upload that cannot take holes. */
function* zeros(length: number): Generator<UploadChunk> {
  const piece = Buffer.alloc(Math.min(length, 4 * 1024 * 1024));
  for (let left = length; left > 0; left -= piece.length) yield { data: left >= piece.length ? piece : piece.subarray(0, left) };
}

/** A file as upload chunks; each chunk is valid until the next is asked for. */
export function fileChunks(file: string, opts: ChunkOptions): AsyncGenerator<UploadChunk> {
  const reads = { readSize: opts.readSize, reuse: true };
  return uploadChunks(opts.sparse ? fileData(file, reads) : fileReads(file, reads), opts);
}
