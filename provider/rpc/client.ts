// The libvirt RPC client: one per byte stream (an SSH-forwarded unix socket in
// production), speaking to it through a Procedure row per call. Many calls in flight
// matched by serial, never more than libvirtd works on per client (the rest queue here); incoming packets routed by type first (keepalive and events are
// MESSAGE packets, whatever their serial); every call bounded by an AbortSignal and the
// client's call bound, and abandoned without touching the stream. The handshake is in
// handshake.ts, keepalive in keepalive.ts, data streams in stream.ts.
import { RequestSlots } from "./request-slots";
import { EventEmitter } from "events";
import { Duplex } from "stream";
import { decode, encode } from "./codec";
import { CallTimeout, LibvirtError, RpcAbortError, RpcNotSentError, RpcProtocolError, RpcTransportError } from "./errors";
import { Keepalive, PONG } from "./keepalive";
import { encodePacket, Header, KeepaliveProc, MessageStatus, MessageType, Packet, PacketParser, Program, PROGRAM_VERSION } from "./packet";
import { Procedure } from "./procedure";
import { remoteError } from "./types";

export interface RpcClientOptions {
  /** Bound on each call's reply (and each wait of a stream), ms; 0 for none. */
  callTimeoutMs?: number;
  /** Calls the daemon works on at once for this client; more wait here. libvirtd's max_client_requests, 5 by default. */
  maxRequests?: number;
}

/** libvirtd's default max_client_requests: past it the daemon stops reading the client's socket. */
export const DAEMON_REQUEST_LIMIT = 5;

/** What a data stream registers to receive its STREAM / STREAM_HOLE packets. */
export interface StreamSink {
  onPacket(packet: Packet): void;
  onClose(err: Error): void;
}

interface PendingCall {
  api: string;
  resolve(payload: Buffer): void;
  reject(err: Error): void;
}

export class RpcClient extends EventEmitter {
  private readonly parser = new PacketParser();
  private readonly pending = new Map<number, PendingCall>();
  private readonly streams = new Map<number, StreamSink>();
  private serial = 1;
  private closedWith: Error | undefined;
  /** Calls sent whose reply has not come yet, abandoned ones included (the daemon still works on them). */
  private readonly working = new Set<number>();
  private readonly slots: RequestSlots;
  private keepalive: Keepalive | undefined;
  private pongWaiting = false;
  readonly callTimeoutMs: number;
  readonly maxRequests: number;
  /**
   * Counters for tests and diagnostics; `peakRequests` is the most calls the daemon had at
   * once, `queued` the calls that waited for a slot, `streamBytesDropped` the stream data
   * no reader held (beyond a stream's bound).
   */
  readonly stats = { pingsAnswered: 0, pingsSent: 0, repliesDropped: 0, peakRequests: 0, queued: 0, streamBytesDropped: 0 };

  constructor(
    private readonly stream: Duplex,
    options: RpcClientOptions = {},
  ) {
    super();
    this.callTimeoutMs = options.callTimeoutMs ?? 0;
    this.maxRequests = options.maxRequests ?? DAEMON_REQUEST_LIMIT;
    this.slots = new RequestSlots(this.maxRequests);
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.on("error", (err) => this.destroy(new RpcTransportError(`libvirt link failed: ${err.message}`, { cause: err })));
    stream.on("close", () => this.destroy(new RpcTransportError("libvirt link closed")));
    stream.on("end", () => this.destroy(new RpcTransportError("libvirt closed the connection")));
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Pings the daemon after `intervalSeconds` of silence; `count` unanswered PINGs end the link. */
  startKeepalive(intervalSeconds: number, count: number): void {
    this.keepalive?.stop();
    this.keepalive = new Keepalive(
      {
        send: (frame) => {
          this.stats.pingsSent++;
          this.write(frame);
        },
        dead: (reason) => this.destroy(new RpcTransportError(reason)),
      },
      intervalSeconds,
      count,
    );
  }

  /**
   * Calls a procedure and resolves with its decoded result. `watched`: the caller bounds
   * it by its progress through `signal` (a copy that takes as long as its data), so the
   * client's flat call bound does not apply.
   */
  async call<A, R>(proc: Procedure<A, R>, args: A, signal?: AbortSignal, watched = false): Promise<R> {
    const payload = await this.invoke(proc, args, signal, undefined, watched);
    try {
      return decode(proc.ret, payload);
    } catch (err) {
      throw new RpcProtocolError(`cannot decode the reply of ${proc.api}: ${(err as Error).message}`);
    }
  }

  /**
   * Calls a stream-opening procedure with `sink` registered for its serial before the
   * call is sent (the daemon may report a stream error right after its reply).
   * Resolves with the serial once the daemon accepted the call.
   */
  async openStream<A>(proc: Procedure<A, unknown>, args: A, sink: StreamSink, signal?: AbortSignal): Promise<number> {
    let serial: number | undefined;
    try {
      await this.invoke(proc, args, signal, (s) => {
        serial = s;
        this.streams.set(s, sink);
      });
      return serial!;
    } catch (err) {
      if (serial !== undefined) this.streams.delete(serial);
      throw err;
    }
  }

  /** Stops routing a stream's packets (late ones are dropped). */
  closeStream(serial: number): void {
    this.streams.delete(serial);
  }

  /** A reply came: the daemon has one call less. */
  private finished(serial: number): void {
    if (this.working.delete(serial)) this.slots.release();
  }

  private async invoke<A>(proc: Procedure<A, unknown>, args: A, signal?: AbortSignal, assigned?: (serial: number) => void, watched = false): Promise<Buffer> {
    if (this.closedWith) throw new RpcNotSentError(proc.api, this.closedWith);
    if (signal?.aborted) throw new RpcAbortError(proc.api, signal.reason);
    // a free slot is taken in this tick: the call is sent before anything else can happen
    const waiting = this.slots.take(proc.api, signal);
    if (waiting) {
      this.stats.queued++;
      await waiting;
      if (this.closedWith) throw new RpcNotSentError(proc.api, this.closedWith);
      if (signal?.aborted) {
        this.slots.release();
        throw new RpcAbortError(proc.api, signal.reason);
      }
    }
    const serial = this.serial++;
    assigned?.(serial);
    this.working.add(serial);
    this.stats.peakRequests = Math.max(this.stats.peakRequests, this.working.size);
    const frame = encodePacket(this.header(proc.proc, MessageType.Call, serial, MessageStatus.Ok), encode(proc.args, args));
    return new Promise<Buffer>((resolve, reject) => {
      const abandon = (reason: unknown) => {
        // forget the serial: a late reply is dropped; the stream stays open
        this.pending.delete(serial);
        done();
        reject(new RpcAbortError(proc.api, reason));
      };
      const onAbort = () => abandon(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      const timer =
        this.callTimeoutMs > 0 && !watched ? setTimeout(() => abandon(new CallTimeout(proc.api, this.callTimeoutMs)), this.callTimeoutMs) : undefined;
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        clearTimeout(timer);
      };
      this.pending.set(serial, {
        api: proc.api,
        resolve: (p) => {
          done();
          resolve(p);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.write(frame);
    });
  }

  header(proc: number, type: MessageType, serial: number, status: MessageStatus): Header {
    return { prog: Program.REMOTE, vers: PROGRAM_VERSION, proc, type, serial, status };
  }

  /**
   * Writes one frame; false means the stream's buffer is full (wait for `drained`).
   * `taken` runs once the link has copied the frame, so its buffer may be reused.
   */
  write(frame: Buffer, taken?: () => void): boolean {
    if (this.closedWith) return true;
    return taken ? this.stream.write(frame, taken) : this.stream.write(frame);
  }

  /**
   * Calls `fn` once when the stream can take more data; returns what stops waiting. A
   * link that closes meanwhile reaches stream owners through their `onClose`.
   */
  onceDrained(fn: () => void): () => void {
    this.stream.once("drain", fn);
    return () => this.stream.off("drain", fn);
  }

  private onData(chunk: Buffer): void {
    let packets: Packet[];
    try {
      packets = this.parser.push(chunk);
    } catch (err) {
      this.destroy(new RpcTransportError(`corrupt data from libvirtd: ${(err as Error).message}`));
      return;
    }
    this.keepalive?.received();
    for (const packet of packets) this.route(packet);
  }

  private route(packet: Packet): void {
    const h = packet.header;
    switch (h.type) {
      case MessageType.Message:
        if (h.prog === Program.KEEPALIVE) {
          if (h.proc === KeepaliveProc.PING) this.pong();
          return;
        }
        this.emit("event", packet);
        return;
      case MessageType.Reply:
      case MessageType.ReplyWithFds: {
        const call = this.pending.get(h.serial);
        this.finished(h.serial);
        if (!call) {
          this.stats.repliesDropped++;
          return;
        } // abandoned: drop the late reply
        this.pending.delete(h.serial);
        if (h.status === MessageStatus.Ok) call.resolve(packet.payload);
        else call.reject(this.decodeError(packet.payload, call.api));
        return;
      }
      case MessageType.Stream:
      case MessageType.StreamHole:
        this.streams.get(h.serial)?.onPacket(packet);
        return;
      default:
        return; // CALLs from the server are not part of this protocol; ignore
    }
  }

  /**
   * Answers a PING. While the link is full (an upload waits for drain) one PONG waits for
   * the drain and further PINGs share it: a flood of PINGs never grows the write buffer.
   */
  private pong(): void {
    if (this.pongWaiting) return;
    this.stats.pingsAnswered++;
    if (!this.stream.writableNeedDrain) {
      this.write(PONG);
      return;
    }
    this.pongWaiting = true;
    this.stream.once("drain", () => {
      this.pongWaiting = false;
      this.write(PONG);
    });
  }

  decodeError(payload: Buffer, api: string): Error {
    try {
      return new LibvirtError(decode(remoteError, payload), api);
    } catch (err) {
      return new RpcProtocolError(`${api} failed with an undecodable error: ${(err as Error).message}`);
    }
  }

  /** Fails every pending call and stream with `err` and tears the stream down. */
  destroy(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    this.keepalive?.stop();
    for (const call of this.pending.values()) call.reject(err);
    this.pending.clear();
    this.working.clear();
    this.slots.stopAll(err);
    for (const sink of this.streams.values()) sink.onClose(err);
    this.streams.clear();
    this.stream.destroy();
    this.emit("close", err);
  }
}
