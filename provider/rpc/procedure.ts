// What the RPC client needs to know of one procedure of libvirt's REMOTE program: its
// number, the public API it implements (for logs and errors), and its codecs. The
// table of the procedures pulumi-kvm uses lives with the seam (libvirt/calls.ts); the
// client takes any row.
import { Codec } from "./codec";

export interface Procedure<A, R> {
  proc: number;
  /** The public libvirt function, e.g. "virStorageVolCreateXML". */
  api: string;
  args: Codec<A>;
  ret: Codec<R>;
}

export function procedure<A, R>(proc: number, api: string, args: Codec<A>, ret: Codec<R>): Procedure<A, R> {
  return { proc, api, args, ret };
}
