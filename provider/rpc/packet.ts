// libvirt's packet framing: a length word that counts itself, a 24-byte header, then
// the payload. Serializing and parsing only; the client does the I/O.

export const Program = {
  REMOTE: 0x20008086,
  KEEPALIVE: 0x6b656570,
} as const;

export const PROGRAM_VERSION = 1;

export enum MessageType {
  Call = 0,
  Reply = 1,
  Message = 2,
  Stream = 3,
  CallWithFds = 4,
  ReplyWithFds = 5,
  StreamHole = 6,
}

export enum MessageStatus {
  Ok = 0,
  Error = 1,
  Continue = 2,
}

export const KeepaliveProc = { PING: 1, PONG: 2 } as const;

export const LEN_SIZE = 4;
export const HEADER_SIZE = 24;
/** Header + payload ceiling of current daemons (older ones: 16 MiB). */
export const MESSAGE_MAX = 32 * 1024 * 1024;
/** libvirt's own stream chunk (VIR_NET_MESSAGE_LEGACY_PAYLOAD_MAX), ≤ 256 KiB. */
export const STREAM_CHUNK = 262120;

export interface Header {
  prog: number;
  vers: number;
  proc: number;
  type: MessageType;
  serial: number;
  status: MessageStatus;
}

export interface Packet {
  header: Header;
  payload: Buffer;
}

/** One whole frame: length word, header, payload. */
export function encodePacket(header: Header, payload: Buffer = Buffer.alloc(0)): Buffer {
  return encodePacketInto(Buffer.allocUnsafe(LEN_SIZE + HEADER_SIZE + payload.length), header, payload);
}

/** encodePacket into `target` (a reused buffer of at least the frame's size); returns the frame's view of it. */
export function encodePacketInto(target: Buffer, header: Header, payload: Buffer): Buffer {
  const total = LEN_SIZE + HEADER_SIZE + payload.length;
  if (total - LEN_SIZE > MESSAGE_MAX) throw new RangeError(`packet of ${total} bytes exceeds libvirt's limit`);
  if (target.length < total) throw new RangeError(`a frame of ${total} bytes does not fit a buffer of ${target.length}`);
  const frame = target.subarray(0, total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(header.prog >>> 0, 4);
  frame.writeUInt32BE(header.vers >>> 0, 8);
  frame.writeInt32BE(header.proc, 12);
  frame.writeInt32BE(header.type, 16);
  frame.writeUInt32BE(header.serial >>> 0, 20);
  frame.writeInt32BE(header.status, 24);
  payload.copy(frame, LEN_SIZE + HEADER_SIZE);
  return frame;
}

export function decodeHeader(buf: Buffer, at = 0): Header {
  return {
    prog: buf.readUInt32BE(at),
    vers: buf.readUInt32BE(at + 4),
    proc: buf.readInt32BE(at + 8),
    type: buf.readInt32BE(at + 12),
    serial: buf.readUInt32BE(at + 16),
    status: buf.readInt32BE(at + 20),
  };
}

/**
 * Reassembles packets from arbitrary chunks of a byte stream. Chunks are kept in a
 * list and joined only when a whole packet is there, so a large stream packet arriving
 * in many small reads is copied once.
 */
export class PacketParser {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Feeds bytes; returns every packet completed by them. Throws on a corrupt length. */
  push(chunk: Buffer): Packet[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Packet[] = [];
    for (;;) {
      if (this.buffered < LEN_SIZE) break;
      const total = this.peekLength();
      if (total < LEN_SIZE + HEADER_SIZE) throw new RangeError(`packet length ${total} is smaller than a header`);
      if (total - LEN_SIZE > MESSAGE_MAX) throw new RangeError(`packet length ${total} exceeds libvirt's limit`);
      if (this.buffered < total) break;
      const frame = this.take(total);
      out.push({ header: decodeHeader(frame, LEN_SIZE), payload: frame.subarray(LEN_SIZE + HEADER_SIZE) });
    }
    return out;
  }

  /** The length word, copying only its 4 bytes when it spans chunks (never the whole buffer). */
  private peekLength(): number {
    const first = this.chunks[0];
    if (first.length >= LEN_SIZE) return first.readUInt32BE(0);
    const word = Buffer.alloc(LEN_SIZE);
    let got = 0;
    for (const c of this.chunks) {
      got += c.copy(word, got, 0, Math.min(c.length, LEN_SIZE - got));
      if (got === LEN_SIZE) break;
    }
    return word.readUInt32BE(0);
  }

  /** The next `n` bytes, copied once when they span chunks. */
  private take(n: number): Buffer {
    const first = this.chunks[0];
    this.buffered -= n;
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const frame = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const c = this.chunks[0];
      const used = c.copy(frame, got, 0, Math.min(c.length, n - got));
      got += used;
      if (used === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(used);
    }
    return frame;
  }
}
