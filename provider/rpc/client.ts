// The libvirt RPC client: one per byte stream (an SSH-forwarded unix socket in
// production). Many calls in flight matched by serial; incoming packets routed by type
// first (keepalive and events are MESSAGE packets, whatever their serial); keepalive
// answered and sent; every call abandonable with an AbortSignal without touching the
// stream. Data streams (upload/download) live in stream.ts on top of `openStream`.
import { EventEmitter } from "events";
import { Duplex } from "stream";
import { decode, encode } from "./codec";
import { CallTimeout, LibvirtError, RpcAbortError, RpcProtocolError, RpcTransportError } from "./errors";
import {
  encodePacket, Header, KeepaliveProc, MessageStatus, MessageType, Packet, PacketParser, Program, PROGRAM_VERSION,
} from "./packet";
import { ArgsOf, AuthType, Feature, ProcedureName, procedures, RetOf } from "./procedures";
import { remoteError } from "./types";

export interface RpcClientOptions {
  /** Hypervisor URI given to CONNECT_OPEN, as libvirt's remote driver sends it. */
  uri?: string;
  readOnly?: boolean;
  /** Seconds of silence before a keepalive PING; 0 disables keepalive. */
  keepaliveInterval?: number;
  /** Unanswered PINGs after which the link is declared dead. */
  keepaliveCount?: number;
  /**
   * Bound on each call's reply, ms; 0 for none. Keepalive only proves libvirtd is
   * alive: a call stuck behind a hung qemu monitor would otherwise wait forever.
   */
  callTimeoutMs?: number;
}

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

export const DEFAULT_URI = "qemu:///system";

export class RpcClient extends EventEmitter {
  private readonly parser = new PacketParser();
  private readonly pending = new Map<number, PendingCall>();
  private readonly streams = new Map<number, StreamSink>();
  private serial = 1;
  private closedWith: Error | undefined;
  private lastReceived = Date.now();
  private unansweredPings = 0;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  /** Counters for tests and diagnostics. */
  readonly stats = { pingsAnswered: 0, pingsSent: 0, repliesDropped: 0 };

  constructor(private readonly stream: Duplex, readonly callTimeoutMs = 0) {
    super();
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.on("error", (err) => this.destroy(new RpcTransportError(`libvirt link failed: ${err.message}`, { cause: err })));
    stream.on("close", () => this.destroy(new RpcTransportError("libvirt link closed")));
    stream.on("end", () => this.destroy(new RpcTransportError("libvirt closed the connection")));
  }

  /** Handshake on a fresh stream: AUTH_LIST, AUTH_POLKIT when listed, keepalive, CONNECT_OPEN. */
  static async open(stream: Duplex, options: RpcClientOptions = {}, signal?: AbortSignal): Promise<RpcClient> {
    const client = new RpcClient(stream, options.callTimeoutMs ?? 0);
    try {
      await client.authenticate(signal);
      const interval = options.keepaliveInterval ?? 5;
      if (interval > 0) {
        await client.call("connectSupportsFeature", { feature: Feature.PROGRAM_KEEPALIVE }, signal);
        // a daemon that supports keepalive also pings us when idle; either way we ping it
        client.startKeepalive(interval, options.keepaliveCount ?? 5);
      }
      await client.call("connectOpen", { name: options.uri ?? DEFAULT_URI, flags: options.readOnly ? 1 : 0 }, signal);
      return client;
    } catch (err) {
      client.destroy(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
  }

  private async authenticate(signal?: AbortSignal): Promise<void> {
    let types: number[];
    try {
      ({ types } = await this.call("authList", undefined, signal));
    } catch (err) {
      // daemons older than the auth API answer VIR_ERR_NO_SUPPORT: nothing to do
      if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_SUPPORT") return;
      throw err;
    }
    if (types.length === 0 || types.includes(AuthType.NONE)) return;
    if (types.includes(AuthType.POLKIT)) {
      const { complete } = await this.call("authPolkit", undefined, signal);
      if (complete !== 1) throw new RpcProtocolError("polkit authentication did not complete");
      return;
    }
    throw new RpcProtocolError(
      "libvirtd asks for SASL authentication, which pulumi-kvm does not speak: set auth_unix_rw = \"none\" or \"polkit\" in libvirtd.conf on the host, or log in as root",
    );
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Calls a procedure and resolves with its decoded result. */
  async call<N extends ProcedureName>(name: N, args: ArgsOf<N>, signal?: AbortSignal): Promise<RetOf<N>> {
    const proc = procedures[name];
    const payload = await this.invoke(name, args, signal);
    try {
      return decode(proc.ret as any, payload) as RetOf<N>;
    } catch (err) {
      throw new RpcProtocolError(`cannot decode the reply of ${proc.api}: ${(err as Error).message}`);
    }
  }

  /**
   * Calls a stream-opening procedure with `sink` registered for its serial before the
   * call is sent (the daemon may report a stream error right after its reply).
   * Resolves with the serial once the daemon accepted the call.
   */
  async openStream<N extends ProcedureName>(name: N, args: ArgsOf<N>, sink: StreamSink, signal?: AbortSignal): Promise<number> {
    const serial = this.serial;
    this.streams.set(serial, sink);
    try {
      await this.invoke(name, args, signal);
      return serial;
    } catch (err) {
      this.streams.delete(serial);
      throw err;
    }
  }

  /** Stops routing a stream's packets (late ones are dropped). */
  closeStream(serial: number): void {
    this.streams.delete(serial);
  }

  private invoke(name: ProcedureName, args: unknown, signal?: AbortSignal): Promise<Buffer> {
    const proc = procedures[name];
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(new RpcAbortError(proc.api, signal.reason));
    const serial = this.serial++;
    const frame = encodePacket(this.header(proc.proc, MessageType.Call, serial, MessageStatus.Ok), encode(proc.args as any, args));
    return new Promise<Buffer>((resolve, reject) => {
      const abandon = (reason: unknown) => {
        // forget the serial: a late reply is dropped; the stream stays open
        this.pending.delete(serial);
        done();
        reject(new RpcAbortError(proc.api, reason));
      };
      const onAbort = () => abandon(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      const timer = this.callTimeoutMs > 0
        ? setTimeout(() => abandon(new CallTimeout(proc.api, this.callTimeoutMs)), this.callTimeoutMs)
        : undefined;
      const done = () => { signal?.removeEventListener("abort", onAbort); clearTimeout(timer); };
      this.pending.set(serial, {
        api: proc.api,
        resolve: (p) => { done(); resolve(p); },
        reject: (e) => { done(); reject(e); },
      });
      this.write(frame);
    });
  }

  header(proc: number, type: MessageType, serial: number, status: MessageStatus, prog: number = Program.REMOTE): Header {
    return { prog, vers: PROGRAM_VERSION, proc, type, serial, status };
  }

  /** Writes one frame; false means the stream's buffer is full (wait for `drained`). */
  write(frame: Buffer): boolean {
    if (this.closedWith) return true;
    return this.stream.write(frame);
  }

  /** Resolves when the stream can take more data; rejects if the link closes or `signal` fires. */
  drained(signal?: AbortSignal): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        this.stream.off("drain", onDrain);
        this.off("close", onClose);
        signal?.removeEventListener("abort", onAbort);
      };
      const onDrain = () => { cleanup(); resolve(); };
      const onClose = (err: Error) => { cleanup(); reject(err); };
      const onAbort = () => { cleanup(); reject(signal?.reason ?? new Error("aborted")); };
      this.stream.on("drain", onDrain);
      this.on("close", onClose);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Stops / resumes reading from the link (download back-pressure). */
  pauseReading(paused: boolean): void {
    if (paused) this.stream.pause();
    else this.stream.resume();
  }

  private onData(chunk: Buffer): void {
    let packets: Packet[];
    try {
      packets = this.parser.push(chunk);
    } catch (err) {
      this.destroy(new RpcTransportError(`corrupt data from libvirtd: ${(err as Error).message}`));
      return;
    }
    this.lastReceived = Date.now();
    this.unansweredPings = 0;
    for (const packet of packets) this.route(packet);
  }

  private route(packet: Packet): void {
    const h = packet.header;
    switch (h.type) {
      case MessageType.Message:
        if (h.prog === Program.KEEPALIVE) {
          if (h.proc === KeepaliveProc.PING) {
            this.write(encodePacket(this.header(KeepaliveProc.PONG, MessageType.Message, 0, MessageStatus.Ok, Program.KEEPALIVE)));
            this.stats.pingsAnswered++;
          }
          return;
        }
        this.emit("event", packet);
        return;
      case MessageType.Reply:
      case MessageType.ReplyWithFds: {
        const call = this.pending.get(h.serial);
        if (!call) { this.stats.repliesDropped++; return; } // abandoned: drop the late reply
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

  decodeError(payload: Buffer, api: string): Error {
    try {
      return new LibvirtError(decode(remoteError, payload), api);
    } catch (err) {
      return new RpcProtocolError(`${api} failed with an undecodable error: ${(err as Error).message}`);
    }
  }

  private startKeepalive(intervalSeconds: number, count: number): void {
    const ms = intervalSeconds * 1000;
    this.keepaliveTimer = setInterval(() => {
      if (this.closedWith) return;
      if (Date.now() - this.lastReceived < ms) return;
      if (this.unansweredPings >= count) {
        this.destroy(new RpcTransportError(
          `libvirtd did not answer for ${Math.round((Date.now() - this.lastReceived) / 1000)} s (keepalive: ${count} pings every ${intervalSeconds} s)`,
        ));
        return;
      }
      this.unansweredPings++;
      this.stats.pingsSent++;
      this.write(encodePacket(this.header(KeepaliveProc.PING, MessageType.Message, 0, MessageStatus.Ok, Program.KEEPALIVE)));
    }, Math.max(100, Math.min(ms, 1000)));
    this.keepaliveTimer.unref();
  }

  /** Closes the hypervisor connection politely, then the stream. */
  async close(timeoutMs = 2000): Promise<void> {
    if (this.closedWith) return;
    try {
      await this.call("connectClose", undefined, AbortSignal.timeout(timeoutMs));
    } catch {
      // closing anyway
    }
    this.destroy(new RpcTransportError("libvirt connection closed by the client"));
  }

  /** Fails every pending call and stream with `err` and tears the stream down. */
  destroy(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    for (const call of this.pending.values()) call.reject(err);
    this.pending.clear();
    for (const sink of this.streams.values()) sink.onClose(err);
    this.streams.clear();
    this.stream.destroy();
    this.emit("close", err);
  }
}
