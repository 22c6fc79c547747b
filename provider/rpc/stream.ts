// Data streams over the RPC client: volume upload (with back-pressure, sparse holes,
// server errors noticed while sending, abort) and download. Both take the row of the
// procedure that opens the stream (virStorageVolUpload / virStorageVolDownload).
import { encode } from "./codec";
import { RpcClient, StreamSink } from "./client";
import { CallTimeout, RpcAbortError, RpcProtocolError } from "./errors";
import { encodePacket, encodePacketInto, HEADER_SIZE, LEN_SIZE, MessageStatus, MessageType, Packet, STREAM_CHUNK } from "./packet";
import { Procedure } from "./procedure";
import { streamHole, VolumeRef } from "./types";

/** The arguments of virStorageVolUpload and virStorageVolDownload. */
export interface VolumeTransfer {
  vol: VolumeRef;
  offset: bigint;
  length: bigint;
  flags: number;
}

/** virStorageVolUploadFlags: holes may be sent as STREAM_HOLE packets. */
const VOL_UPLOAD_SPARSE_STREAM = 1;

/** A piece of an upload: bytes, or a run of zeros the daemon can skip (sparse). */
export type UploadChunk = { data: Buffer } | { hole: number };

export interface TransferProgress {
  /** Bytes of the volume covered so far (data + holes). */
  covered: number;
  /** Bytes actually sent as data. */
  sent: number;
}

export interface UploadOptions {
  offset?: bigint;
  /** 0 = up to the end of the stream. */
  length?: bigint;
  /** Open the stream sparse so holes can be sent as STREAM_HOLE packets. */
  sparse?: boolean;
  signal?: AbortSignal;
  onProgress?(p: TransferProgress): void;
}

/** Collects the daemon's side of one stream: data, its end, its verdict. */
class StreamState implements StreamSink {
  failure: Error | undefined;
  finished = false;
  eof = false;
  readonly data: Buffer[] = [];
  /** Bytes in `data`, and whether they passed the bound (the consumer stalled). */
  private buffered = 0;
  overflowed = false;
  private waiter: (() => void) | undefined;

  /**
   * `maxBuffered`: unread bytes held before the rest is dropped; with `failOnOverflow`
   * (a download, whose reader stalled) the stream then fails too.
   */
  constructor(
    private readonly client: RpcClient,
    private readonly api: string,
    private readonly maxBuffered: number,
    private readonly failOnOverflow: boolean,
  ) {}

  /** The oldest unread chunk. */
  take(): Buffer {
    const chunk = this.data.shift()!;
    this.buffered -= chunk.length;
    return chunk;
  }

  onPacket(packet: Packet): void {
    const { status } = packet.header;
    if (status === MessageStatus.Error) this.failure = this.client.decodeError(packet.payload, this.api);
    else if (status === MessageStatus.Ok) this.finished = true;
    else if (packet.header.type === MessageType.Stream) {
      if (packet.payload.length === 0) this.eof = true;
      else if (this.overflowed) this.client.stats.streamBytesDropped += packet.payload.length;
      else {
        this.data.push(Buffer.from(packet.payload));
        this.buffered += packet.payload.length;
        if (this.buffered > this.maxBuffered) {
          this.overflowed = true;
          if (this.failOnOverflow)
            this.failure ??= new RpcProtocolError(
              `${this.api}: the reader left more than ${this.maxBuffered} bytes unread; the download was dropped (the link stays up)`,
            );
        }
      }
    }
    this.wake();
  }

  onClose(err: Error): void {
    this.failure ??= err;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  /** Wakes a waiting `next` without a packet (the link drained). */
  poke(): void {
    this.wake();
  }

  /**
   * Waits for the next packet, the link's end or a `poke`, bounded by `signal` and the
   * client's call bound. One timer and no error object per wait: an upload waits
   * thousands of times per gigabyte.
   */
  next(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new RpcAbortError(this.api, signal.reason));
      const ms = this.client.callTimeoutMs;
      const settle = (err?: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiter = undefined;
        if (err) reject(err);
        else resolve();
      };
      const timer = ms > 0 ? setTimeout(() => settle(new RpcAbortError(this.api, new CallTimeout(this.api, ms))), ms) : undefined;
      const onAbort = () => settle(new RpcAbortError(this.api, signal!.reason));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiter = () => settle();
    });
  }
}

function streamFrame(client: RpcClient, proc: number, serial: number, type: MessageType, status: MessageStatus, payload?: Buffer): Buffer {
  return encodePacket(client.header(proc, type, serial, status), payload);
}

/**
 * Data frames of an upload, reused once the link took them: a gigabyte sent makes no
 * gigabyte of garbage (the collector, not the cipher, was the upload's largest cost).
 * The pool grows to what the link buffers (its high-water mark and window), a few MiB.
 */
class FramePool {
  private readonly free: Buffer[] = [];
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(LEN_SIZE + HEADER_SIZE + STREAM_CHUNK);
  }
  give(frame: Buffer): void {
    this.free.push(frame);
  }
}

/** Bytes of unsolicited stream data an upload holds (never read) before it drops the rest. */
export const UNSOLICITED_BOUND = 64 * 1024;

/** Uploads `source` into a volume; resolves when the daemon confirmed the finish. */
export async function uploadVolume(
  client: RpcClient,
  proc: Procedure<VolumeTransfer, void>,
  vol: VolumeRef,
  source: AsyncIterable<UploadChunk>,
  opts: UploadOptions = {},
): Promise<TransferProgress> {
  // an upload asks for no data: what a daemon sends anyway is held up to a small bound, then dropped
  const state = new StreamState(client, proc.api, UNSOLICITED_BOUND, false);
  const serial = await client.openStream(
    proc,
    {
      vol,
      offset: opts.offset ?? 0n,
      length: opts.length ?? 0n,
      flags: opts.sparse ? VOL_UPLOAD_SPARSE_STREAM : 0,
    },
    state,
    opts.signal,
  );
  const progress: TransferProgress = { covered: 0, sent: 0 };
  const frames = new FramePool();
  const send = async (frame: Buffer, taken?: () => void) => {
    if (state.failure) throw state.failure;
    if (!client.write(frame, taken)) {
      // back-pressure; a daemon error, the link's end or the caller's abort ends the wait too
      let drained = false;
      const stop = client.onceDrained(() => {
        drained = true;
        state.poke();
      });
      try {
        while (!drained && !state.failure) await state.next(opts.signal);
      } finally {
        stop();
      }
      if (state.failure) throw state.failure;
    }
  };
  try {
    for await (const chunk of source) {
      if (opts.signal?.aborted) throw new RpcAbortError(proc.api, opts.signal.reason);
      if ("hole" in chunk) {
        if (!opts.sparse) throw new RpcProtocolError("a hole was given to an upload that is not sparse");
        await send(
          streamFrame(client, proc.proc, serial, MessageType.StreamHole, MessageStatus.Continue, encode(streamHole, { length: BigInt(chunk.hole), flags: 0 })),
        );
        progress.covered += chunk.hole;
      } else {
        for (let at = 0; at < chunk.data.length; at += STREAM_CHUNK) {
          const piece = chunk.data.subarray(at, Math.min(at + STREAM_CHUNK, chunk.data.length));
          const buffer = frames.take();
          const frame = encodePacketInto(buffer, client.header(proc.proc, MessageType.Stream, serial, MessageStatus.Continue), piece);
          await send(frame, () => frames.give(buffer));
          progress.covered += piece.length;
          progress.sent += piece.length;
        }
      }
      opts.onProgress?.(progress);
    }
    await send(streamFrame(client, proc.proc, serial, MessageType.Stream, MessageStatus.Ok));
    while (!state.finished && !state.failure) await state.next(opts.signal);
    if (state.failure) throw state.failure;
    return progress;
  } catch (err) {
    if (!state.failure && !client.closed) {
      // tell the daemon to drop the stream; its answer is not awaited
      client.write(streamFrame(client, proc.proc, serial, MessageType.Stream, MessageStatus.Error));
    }
    throw err;
  } finally {
    client.closeStream(serial);
  }
}

export interface DownloadOptions {
  offset?: bigint;
  length?: bigint;
  signal?: AbortSignal;
  /** Bytes this download may hold unread before it fails (its consumer stalled). */
  maxBuffered?: number;
}

/**
 * Downloads a volume as a sequence of chunks. libvirt has no per-stream flow control:
 * the daemon sends as fast as the link takes it, and pausing the shared link would
 * starve every other call and the keepalive on it. So the link is never paused: the
 * chunks wait in this stream's own buffer, which is bounded by `maxBuffered`.
 */
export async function* downloadVolume(
  client: RpcClient,
  proc: Procedure<VolumeTransfer, void>,
  vol: VolumeRef,
  opts: DownloadOptions = {},
): AsyncGenerator<Buffer> {
  const maxBuffered = opts.maxBuffered ?? 256 * 1024 * 1024;
  const state = new StreamState(client, proc.api, maxBuffered, true);
  const serial = await client.openStream(proc, { vol, offset: opts.offset ?? 0n, length: opts.length ?? 0n, flags: 0 }, state, opts.signal);
  let completed = false;
  try {
    for (;;) {
      while (state.data.length > 0 && !state.overflowed) yield state.take();
      if (state.failure) throw state.failure;
      if (state.eof) break;
      await state.next(opts.signal);
    }
    // end of data: confirm the finish and wait for the daemon's verdict
    client.write(streamFrame(client, proc.proc, serial, MessageType.Stream, MessageStatus.Ok));
    while (!state.finished && !state.failure) await state.next(opts.signal);
    if (state.failure) throw state.failure;
    completed = true;
  } finally {
    if (!completed && !client.closed && (!state.failure || state.overflowed)) {
      client.write(streamFrame(client, proc.proc, serial, MessageType.Stream, MessageStatus.Error));
    }
    client.closeStream(serial);
  }
}
