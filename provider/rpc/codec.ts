// Declarative XDR codecs: small combinators from which every libvirt struct in the
// procedure table is composed, so a new procedure is a table row, not a routine.
import { XdrReader, XdrWriter } from "./xdr";

export interface Codec<T> {
  encode(w: XdrWriter, v: T): void;
  decode(r: XdrReader): T;
}

export type Infer<C> = C extends Codec<infer T> ? T : never;

export const int: Codec<number> = { encode: (w, v) => void w.int(v), decode: (r) => r.int() };
export const uint: Codec<number> = { encode: (w, v) => void w.uint(v), decode: (r) => r.uint() };
export const hyper: Codec<bigint> = { encode: (w, v) => void w.hyper(v), decode: (r) => r.hyper() };
export const uhyper: Codec<bigint> = { encode: (w, v) => void w.uhyper(v), decode: (r) => r.uhyper() };
/** XDR bool: one word, 0 or 1 on the wire; any non-zero decodes as true. */
export const bool: Codec<boolean> = { encode: (w, v) => void w.int(v ? 1 : 0), decode: (r) => r.int() !== 0 };
export const voidCodec: Codec<void> = { encode: () => undefined, decode: () => undefined };

export function string(max: number): Codec<string> {
  return { encode: (w, v) => void w.string(v, max), decode: (r) => r.string(max) };
}

export function opaque(max: number): Codec<Buffer> {
  return { encode: (w, v) => void w.opaque(v, max), decode: (r) => r.opaque(max) };
}

export function fixedOpaque(size: number): Codec<Buffer> {
  return { encode: (w, v) => void w.fixedOpaque(v, size), decode: (r) => r.fixedOpaque(size) };
}

/** `T *`: a present flag word, then T when present. Absent is `null`. */
export function optional<T>(inner: Codec<T>): Codec<T | null> {
  return {
    encode: (w, v) => {
      w.uint(v === null || v === undefined ? 0 : 1);
      if (v !== null && v !== undefined) inner.encode(w, v);
    },
    decode: (r) => {
      const present = r.uint();
      if (present > 1) throw new RangeError(`optional present flag ${present} is neither 0 nor 1`);
      return present ? inner.decode(r) : null;
    },
  };
}

/** `T name<max>`: a count word, then the elements. */
export function array<T>(inner: Codec<T>, max: number): Codec<T[]> {
  return {
    encode: (w, v) => {
      if (v.length > max) throw new RangeError(`array of ${v.length} exceeds its limit of ${max}`);
      w.uint(v.length);
      for (const e of v) inner.encode(w, e);
    },
    decode: (r) => {
      const n = r.uint();
      if (n > max) throw new RangeError(`array of ${n} exceeds its limit of ${max}`);
      // each element takes at least one word: refuse counts the payload cannot hold
      if (n * 4 > r.remaining) throw new RangeError(`array count ${n} exceeds the ${r.remaining} bytes left`);
      const out: T[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = inner.decode(r);
      return out;
    },
  };
}

/** `T name[size]`: exactly `size` elements, no count word (libvirt's `char model[32]`: a word per char). */
export function fixedArray<T>(inner: Codec<T>, size: number): Codec<T[]> {
  return {
    encode: (w, v) => {
      if (v.length !== size) throw new RangeError(`fixed array of ${size} given ${v.length}`);
      for (const e of v) inner.encode(w, e);
    },
    decode: (r) => Array.from({ length: size }, () => inner.decode(r)),
  };
}

type Arms = Record<number, Codec<any>>;
type UnionOf<A extends Arms> = { [K in keyof A & number]: { type: K; value: Infer<A[K]> } }[keyof A & number];

/** `union switch (int type)`: the discriminant word, then the arm it names; an arm not listed is refused. */
export function union<A extends Arms>(arms: A): Codec<UnionOf<A>> {
  const arm = (type: number): Codec<unknown> => {
    const c = (arms as Record<number, Codec<unknown> | undefined>)[type];
    if (!c) throw new RangeError(`union arm ${type} is not one of ${Object.keys(arms).join(", ")}`);
    return c;
  };
  return {
    encode: (w, v) => {
      w.int(v.type);
      arm(v.type).encode(w, v.value);
    },
    decode: (r) => {
      const type = r.int();
      return { type, value: arm(type).decode(r) } as UnionOf<A>;
    },
  };
}

type Fields = Record<string, Codec<any>>;
type StructOf<F extends Fields> = { [K in keyof F]: Infer<F[K]> };

/** An XDR struct: fields encoded in declaration order. */
export function struct<F extends Fields>(fields: F): Codec<StructOf<F>> {
  const entries = Object.entries(fields);
  return {
    encode: (w, v) => {
      for (const [k, c] of entries) c.encode(w, (v as Record<string, unknown>)[k]);
    },
    decode: (r) => {
      const out: Record<string, unknown> = {};
      for (const [k, c] of entries) out[k] = c.decode(r);
      return out as StructOf<F>;
    },
  };
}

export function encode<T>(codec: Codec<T>, v: T): Buffer {
  const w = new XdrWriter();
  codec.encode(w, v);
  return w.bytes();
}

export function decode<T>(codec: Codec<T>, buf: Buffer): T {
  const r = new XdrReader(buf);
  const v = codec.decode(r);
  if (r.remaining !== 0) throw new RangeError(`${r.remaining} trailing bytes after the decoded value`);
  return v;
}
