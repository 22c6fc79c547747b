// One live link to a host's libvirtd, as the pool composes it: the SSH transport
// (ssh/), the RPC client opened on its forwarded socket (rpc/), and the traced seam
// over that client (libvirt/). A failure of libvirt's handshake is a DialError of the
// libvirt-connect stage, like the transport's own.
import { log } from "../log";
import { isLibvirtError, Libvirt, RpcAbortError } from "../libvirt/api";
import { rpcLibvirt } from "../libvirt/rpc-libvirt";
import { traced } from "../libvirt/tracing";
import { RpcClient } from "../rpc/client";
import { RpcTransportError } from "../rpc/errors";
import { closeClient, openClient } from "../rpc/handshake";
import { AuthMaterial } from "../ssh/auth-material";
import { dialSsh, DialOptions, SshLink } from "../ssh/dial";
import { DialError } from "../ssh/dial-error";
import { ResolvedHost } from "../ssh/host";

export class Connection {
  private closedWith: Error | undefined;
  readonly libvirt: Libvirt;

  constructor(
    readonly host: ResolvedHost,
    private readonly link: SshLink,
    readonly rpc: RpcClient,
  ) {
    // peak: the most calls libvirtd had from this link at once, queued: the calls that waited
    // for one of them to finish (rpc/client.ts keeps the link within the daemon's limit)
    this.libvirt = traced(rpcLibvirt(rpc), host.label, () => ({ peak: rpc.stats.peakRequests, queued: rpc.stats.queued }));
    rpc.once("close", (err: Error) => this.shutdown(err));
    link.onClose((err) => this.shutdown(new RpcTransportError(err.message, { cause: err.cause })));
  }

  get closed(): boolean {
    return this.closedWith !== undefined || this.rpc.closed;
  }

  private shutdown(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    this.rpc.destroy(err);
    this.link.end();
    log(`host=${this.host.label} link closed: ${err.message}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await closeClient(this.rpc);
    this.shutdown(new RpcTransportError(`link to ${this.host.label} closed by the client`));
  }
}

/** libvirt's side of a failed handshake, as a dial stage. */
function libvirtStage(host: ResolvedHost, err: unknown): DialError {
  const e = err as Error;
  if (isLibvirtError(err)) {
    const denied = /auth|denied|polkit/i.test(e.message) || isLibvirtError(err, "AUTH_FAILED", "ACCESS_DENIED", "AUTH_CANCELLED");
    return new DialError("libvirt-connect", host.label, `libvirt refused the connection (${err.api}): ${e.message}`, {
      hint: denied ? `Log in as root or a member of the libvirt group, or allow ${host.user} in polkit` : `Check the URI ${host.uri} (uri)`,
      cause: err,
      errorClass: denied ? "permanent" : "transient",
    });
  }
  if (err instanceof RpcAbortError) {
    return new DialError("libvirt-connect", host.label, `libvirtd did not answer the handshake within ${host.connectTimeoutMs / 1000} s`, {
      hint: "Is libvirtd hung on the host?",
      cause: err,
      errorClass: "timeout",
    });
  }
  return new DialError("libvirt-connect", host.label, `libvirt handshake failed: ${e?.message ?? String(err)}`, {
    hint: `Is ${host.socketPath} really libvirtd's socket?`,
    cause: err,
    errorClass: "transient",
  });
}

/** Dials the host and opens libvirt on the forwarded socket. */
export async function connect(host: ResolvedHost, material: AuthMaterial, opts: DialOptions = {}): Promise<Connection> {
  const link = await dialSsh(host, material, opts);
  let rpc: RpcClient;
  try {
    rpc = await openClient(
      link.stream,
      {
        uri: host.uri,
        keepaliveInterval: host.keepaliveIntervalMs / 1000,
        keepaliveCount: host.keepaliveCount,
        callTimeoutMs: host.callTimeoutMs,
      },
      AbortSignal.timeout(host.connectTimeoutMs),
    );
  } catch (err) {
    link.end();
    throw libvirtStage(host, err);
  }
  log(`host=${host.label} connected`);
  return new Connection(host, link, rpc);
}
