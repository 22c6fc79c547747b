// An in-memory peer of the RPC client for the states the real libvirtd cannot be put in
// on demand: replies out of order or never, silence, a stalled socket, an error in the
// middle of a stream. It speaks the packet framing of rpc/packet.ts; it does not stand
// in for libvirt in any test of the resources.
import { Duplex } from "stream";
import { Codec, encode } from "../../provider/rpc/codec";
import { encodePacket, Header, MessageStatus, MessageType, Packet, PacketParser, Program, PROGRAM_VERSION } from "../../provider/rpc/packet";
import { remoteError } from "../../provider/rpc/types";

/** One end of an in-memory byte pipe with real back-pressure: a write waits until the peer reads. */
class PipeEnd extends Duplex {
  peer!: PipeEnd;
  private waiting: (() => void) | undefined;

  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    if (this.peer.push(chunk)) done();
    else this.peer.waiting = done;
  }

  override _read(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }
}

export function pipePair(highWaterMark = 64 * 1024): [Duplex, Duplex] {
  const a = new PipeEnd({ highWaterMark });
  const b = new PipeEnd({ highWaterMark });
  a.peer = b;
  b.peer = a;
  return [a, b];
}

export class FakeDaemon {
  readonly received: Packet[] = [];
  private readonly parser = new PacketParser();
  private readonly waiters: (() => void)[] = [];

  /** `client` goes to the RpcClient; the daemon reads and writes the other end. */
  constructor(readonly socket: Duplex) {
    socket.on("data", (chunk: Buffer) => {
      for (const p of this.parser.push(chunk)) this.received.push(p);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static pair(): { daemon: FakeDaemon; client: Duplex } {
    const [client, daemon] = pipePair();
    return { daemon: new FakeDaemon(daemon), client };
  }

  /** Resolves once `n` packets matching `pred` arrived. */
  async until(pred: (p: Packet) => boolean, n = 1): Promise<Packet[]> {
    for (;;) {
      const hits = this.received.filter(pred);
      if (hits.length >= n) return hits;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  calls(proc: number): (p: Packet) => boolean {
    return (p) => p.header.type === MessageType.Call && p.header.proc === proc;
  }

  send(header: Partial<Header> & Pick<Header, "proc" | "type" | "serial">, payload?: Buffer): void {
    this.socket.write(encodePacket({ prog: Program.REMOTE, vers: PROGRAM_VERSION, status: MessageStatus.Ok, ...header }, payload));
  }

  reply<R>(call: Packet, codec: Codec<R>, value: R): void {
    this.send({ proc: call.header.proc, type: MessageType.Reply, serial: call.header.serial }, encode(codec, value));
  }

  fail(call: Packet, code: number, message: string, type = MessageType.Reply): void {
    this.send(
      { proc: call.header.proc, type, serial: call.header.serial, status: MessageStatus.Error },
      encode(remoteError, {
        code,
        domain: 0,
        message,
        level: 2,
        dom: null,
        str1: null,
        str2: null,
        str3: null,
        int1: 0,
        int2: 0,
        net: null,
      }),
    );
  }
}
