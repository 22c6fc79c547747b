// XDR (RFC 4506) primitives as used by libvirt: big-endian 4-byte units, hypers as
// BigInt, variable opaques/strings padded to a multiple of 4. Pure buffer code, no I/O.
// Every variable-length item has a bound: the caller names it (libvirt's own limits).

/** `n` rounded up to a multiple of 4, in plain arithmetic (bit operations wrap at 2^31). */
export function padded(n: number): number {
  return n + ((4 - (n % 4)) % 4);
}

export class XdrWriter {
  private buf: Buffer;
  private len = 0;

  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  int(v: number): this {
    this.reserve(4);
    this.buf.writeInt32BE(v, this.len);
    this.len += 4;
    return this;
  }

  uint(v: number): this {
    this.reserve(4);
    this.buf.writeUInt32BE(v >>> 0, this.len);
    this.len += 4;
    return this;
  }

  hyper(v: bigint): this {
    this.reserve(8);
    this.buf.writeBigInt64BE(v, this.len);
    this.len += 8;
    return this;
  }

  uhyper(v: bigint): this {
    this.reserve(8);
    this.buf.writeBigUInt64BE(v, this.len);
    this.len += 8;
    return this;
  }

  /** Fixed-length opaque: exactly `size` bytes, then padding. */
  fixedOpaque(data: Buffer, size: number): this {
    if (data.length !== size) throw new RangeError(`fixed opaque needs ${size} bytes, got ${data.length}`);
    return this.raw(data);
  }

  /** Variable-length opaque: length word, bytes, padding. */
  opaque(data: Buffer, max: number): this {
    if (data.length > max) throw new RangeError(`opaque of ${data.length} bytes exceeds its limit of ${max}`);
    this.uint(data.length);
    return this.raw(data);
  }

  string(s: string, max: number): this {
    return this.opaque(Buffer.from(s, "utf8"), max);
  }

  private raw(data: Buffer): this {
    const size = padded(data.length);
    this.reserve(size);
    data.copy(this.buf, this.len);
    this.buf.fill(0, this.len + data.length, this.len + size);
    this.len += size;
    return this;
  }

  get length(): number {
    return this.len;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

export class XdrReader {
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.pos + n > this.buf.length) {
      throw new RangeError(`XDR underflow: need ${n} bytes at offset ${this.pos} of ${this.buf.length}`);
    }
  }

  int(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  hyper(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  uhyper(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  fixedOpaque(size: number): Buffer {
    const total = padded(size);
    this.need(total);
    const v = Buffer.from(this.buf.subarray(this.pos, this.pos + size));
    this.pos += total;
    return v;
  }

  opaque(max: number): Buffer {
    const n = this.uint();
    if (n > max) throw new RangeError(`opaque of ${n} bytes exceeds its limit of ${max}`);
    return this.fixedOpaque(n);
  }

  string(max: number): string {
    return this.opaque(max).toString("utf8");
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }
}
