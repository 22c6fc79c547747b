// Opening a libvirt connection on a fresh byte stream, as libvirt's remote driver
// does: AUTH_LIST (always: even root is unauthenticated until it is called),
// AUTH_POLKIT when listed, the keepalive feature, then CONNECT_OPEN. The procedures
// here are the protocol's own, not calls of the seam.
import { Duplex } from "stream";
import { array, int, struct, uint, voidCodec } from "./codec";
import { RpcClient } from "./client";
import { LibvirtError, RpcProtocolError, RpcTransportError } from "./errors";
import { procedure } from "./procedure";
import { remoteString } from "./types";

export const handshakeProcedures = {
  connectOpen: procedure(1, "virConnectOpen", struct({ name: remoteString, flags: uint }), voidCodec),
  connectClose: procedure(2, "virConnectClose", voidCodec, voidCodec),
  connectSupportsFeature: procedure(60, "virConnectSupportsFeature", struct({ feature: int }), struct({ supported: int })),
  authList: procedure(66, "virConnectAuthList", voidCodec, struct({ types: array(int, 20) })),
  authPolkit: procedure(70, "virConnectAuthPolkit", voidCodec, struct({ complete: int })),
};

/** Feature numbers for virConnectSupportsFeature (virDrvFeature). */
const PROGRAM_KEEPALIVE = 10;
/** remote_auth_type. */
export const AuthType = { NONE: 0, SASL: 1, POLKIT: 2 } as const;

export interface OpenOptions {
  /** Hypervisor URI given to CONNECT_OPEN, e.g. "qemu:///system". */
  uri: string;
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

/** A client on `stream` that completed the handshake; the stream is destroyed on failure. */
export async function openClient(stream: Duplex, options: OpenOptions, signal?: AbortSignal): Promise<RpcClient> {
  const client = new RpcClient(stream, { callTimeoutMs: options.callTimeoutMs });
  try {
    await authenticate(client, signal);
    const interval = options.keepaliveInterval ?? 5;
    if (interval > 0) {
      await client.call(handshakeProcedures.connectSupportsFeature, { feature: PROGRAM_KEEPALIVE }, signal);
      // a daemon that supports keepalive also pings us when idle; either way we ping it
      client.startKeepalive(interval, options.keepaliveCount ?? 5);
    }
    await client.call(handshakeProcedures.connectOpen, { name: options.uri, flags: 0 }, signal);
    return client;
  } catch (err) {
    client.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}

async function authenticate(client: RpcClient, signal?: AbortSignal): Promise<void> {
  let types: number[];
  try {
    ({ types } = await client.call(handshakeProcedures.authList, undefined, signal));
  } catch (err) {
    // daemons older than the auth API answer VIR_ERR_NO_SUPPORT: nothing to do
    if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_SUPPORT") return;
    throw err;
  }
  if (types.length === 0 || types.includes(AuthType.NONE)) return;
  if (types.includes(AuthType.POLKIT)) {
    const { complete } = await client.call(handshakeProcedures.authPolkit, undefined, signal);
    if (complete !== 1) throw new RpcProtocolError("polkit authentication did not complete");
    return;
  }
  throw new RpcProtocolError(
    'libvirtd asks for SASL authentication, which pulumi-kvm does not speak: set auth_unix_rw = "none" or "polkit" in libvirtd.conf on the host, or log in as root',
  );
}

/** Closes the hypervisor connection politely, then the stream. */
export async function closeClient(client: RpcClient, timeoutMs = 2000): Promise<void> {
  if (client.closed) return;
  try {
    await client.call(handshakeProcedures.connectClose, undefined, AbortSignal.timeout(timeoutMs));
  } catch {
    // closing anyway
  }
  client.destroy(new RpcTransportError("libvirt connection closed by the client"));
}
