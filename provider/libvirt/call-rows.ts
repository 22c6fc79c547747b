// What a row of the libvirt call table is (calls.ts): a unary read or write, a stream
// call, what its trace line shows, and the codecs and labels the rows share.
import { struct, uhyper, uint, voidCodec } from "../rpc/codec";
import { Procedure } from "../rpc/procedure";
import type { InboundStream } from "../rpc/inbound-stream";
import { TransferProgress, VolumeTransfer } from "../rpc/stream";
import { volumeRef } from "../rpc/types";
import type { DomainRef, NetworkRef, PoolRef, VolumeRef } from "../rpc/types";

type Fields = Record<string, unknown>;

/** What a trace line shows of a call: identifiers, curated results, XML at level 2. Never bodies or secrets. */
export interface Trace<P extends unknown[], T> {
  ids(...args: P): Fields;
  result?(ret: T): Fields;
  xml?(args: P, ret: T): string | undefined;
}

/** A unary call: seam arguments → procedure arguments → reply → seam result. */
export interface Call<P extends unknown[], A, R, T> {
  kind: "call";
  /** Changes something on the host (a repeat after a lost reply could do it twice). */
  mutates: boolean;
  proc: Procedure<A, R>;
  args(...p: P): A;
  ret(r: R): T;
  trace: Trace<P, T>;
  /** Takes as long as the data it moves: its caller bounds it by progress (a signal), not the flat call bound. */
  watched?: boolean;
}

/** A call that opens a data stream (virStorageVolUpload / virStorageVolDownload). */
export interface StreamCall<K extends "upload" | "download"> {
  kind: K;
  proc: Procedure<VolumeTransfer, void>;
  trace: Trace<[VolumeRef, ...unknown[]], K extends "upload" ? TransferProgress : { bytes: number }>;
}

/** A call that opens a stream only the daemon sends on (virDomainOpenConsole): the seam method takes the data's receiver after `P`. */
export interface InboundCall<P extends unknown[], A> {
  kind: "inbound";
  proc: Procedure<A, unknown>;
  args(...p: P): A;
  trace: Trace<P, InboundStream>;
}

export function inbound<P extends unknown[], A>(proc: Procedure<A, unknown>, args: (...p: P) => A, trace: Trace<P, InboundStream>): InboundCall<P, A> {
  return { kind: "inbound", proc, args, trace };
}

export function read<P extends unknown[], A, R, T>(proc: Procedure<A, R>, args: (...p: P) => A, ret: (r: R) => T, trace: Trace<P, T>): Call<P, A, R, T> {
  return { kind: "call", mutates: false, proc, args, ret, trace };
}

export function write<P extends unknown[], A, R, T>(proc: Procedure<A, R>, args: (...p: P) => A, ret: (r: R) => T, trace: Trace<P, T>): Call<P, A, R, T> {
  return { kind: "call", mutates: true, proc, args, ret, trace };
}

/** A row whose call takes as long as the data it moves (see Call.watched). */
export function watched<P extends unknown[], A, R, T>(call: Call<P, A, R, T>): Call<P, A, R, T> {
  return { ...call, watched: true };
}

/** virDomainMetadataType */
export const MetadataType = { DESCRIPTION: 0, TITLE: 1, ELEMENT: 2 } as const;
/** virDomainModificationImpact */
export const Impact = { CURRENT: 0, LIVE: 1, CONFIG: 2 } as const;

export const none = voidCodec;
export const flags = uint;
export const LIST_MAX = 16384;
export const volTransfer = struct({ vol: volumeRef, offset: uhyper, length: uhyper, flags });
export const noArgs = () => undefined;
/** virDomainBlockResizeFlags: the size is in bytes, not KiB */
export const BLOCK_RESIZE_BYTES = 1;
export const nothing = () => undefined;

export const pool = (p: PoolRef) => p.name;
export const vol = (v: VolumeRef) => `${v.pool}/${v.name}`;
export const dom = (d: DomainRef) => d.name;
export const net = (n: NetworkRef) => n.name;
export const hex = (b: Buffer) => b.toString("hex");
