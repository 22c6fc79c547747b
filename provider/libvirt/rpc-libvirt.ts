// The seam over the RPC client, built from the call table: each method encodes its
// row's arguments, calls the row's procedure and maps the reply.
import { RpcClient } from "../rpc/client";
import { openInbound } from "../rpc/inbound-stream";
import { downloadVolume, uploadVolume } from "../rpc/stream";
import type { Libvirt } from "./api";
import { Call, calls } from "./calls";

/** Splits a seam method's trailing AbortSignal from its arguments. */
export function splitSignal(args: unknown[]): { args: unknown[]; signal?: AbortSignal } {
  const last = args[args.length - 1];
  return last instanceof AbortSignal ? { args: args.slice(0, -1), signal: last } : { args };
}

export function rpcLibvirt(client: RpcClient): Libvirt {
  const out: Record<string, unknown> = {
    uploadVolume: (vol, source, opts) => uploadVolume(client, calls.uploadVolume.proc, vol, source, opts),
    downloadVolume: (vol, opts) => downloadVolume(client, calls.downloadVolume.proc, vol, opts),
    openConsole: (dom, onData, signal) => openInbound(client, calls.openConsole.proc, calls.openConsole.args(dom), onData, signal),
  } satisfies Pick<Libvirt, "uploadVolume" | "downloadVolume" | "openConsole">;
  for (const [name, row] of Object.entries(calls)) {
    if (row.kind !== "call") continue;
    const c = row as Call<unknown[], unknown, unknown, unknown>;
    out[name] = async (...given: unknown[]) => {
      const { args, signal } = splitSignal(given);
      return c.ret(await client.call(c.proc, c.args(...args), signal, c.watched));
    };
  }
  return out as unknown as Libvirt;
}
