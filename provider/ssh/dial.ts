// Dialing one host: SSH (through ProxyJump hops if configured) with strict host key
// verification, a streamlocal forward to libvirtd's socket, then the RPC handshake.
// Every failure is a DialError tagged with its stage and a hint for the fix.
import { Duplex } from "stream";
import { Client, ConnectConfig } from "ssh2";
import { log } from "../log";
import { traced } from "../libvirt/tracing";
import { Libvirt } from "../libvirt/api";
import { RpcLibvirt } from "../libvirt/rpc-libvirt";
import { RpcClient } from "../rpc/client";
import { LibvirtError, RpcTransportError } from "../rpc/errors";
import { AuthMaterial } from "./auth-material";
import { DialError, DialStage } from "./dial-error";
import { Jump, ResolvedHost } from "./host";
import { preferredHostKeyAlgorithms, verifyHostKey, Verdict } from "./known-hosts";

/** A live link to one host's libvirtd. */
export class Connection {
  private closedWith: Error | undefined;
  readonly libvirt: Libvirt;

  constructor(readonly host: ResolvedHost, private readonly hops: Client[], readonly rpc: RpcClient) {
    this.libvirt = traced(new RpcLibvirt(rpc), host.label);
    rpc.once("close", (err: Error) => this.shutdown(err));
    for (const hop of hops) {
      hop.on("error", (err) => this.shutdown(new RpcTransportError(`SSH link to ${host.label} failed: ${err.message}`, { cause: err })));
      hop.on("close", () => this.shutdown(new RpcTransportError(`SSH link to ${host.label} closed`)));
    }
  }

  get closed(): boolean {
    return this.closedWith !== undefined || this.rpc.closed;
  }

  private shutdown(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    this.rpc.destroy(err);
    for (const hop of [...this.hops].reverse()) hop.end();
    log(`host=${this.host.label} link closed: ${err.message}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.rpc.close();
    this.shutdown(new RpcTransportError(`link to ${this.host.label} closed by the client`));
  }
}

interface HopTarget {
  address: string;
  port: number;
  user: string;
}

function sshError(label: string, target: HopTarget, err: Error & { level?: string }, state: { tcpUp: boolean; verdict?: Verdict; timeoutS: number; material: AuthMaterial }): DialError {
  const where = `${target.user}@${target.address}:${target.port}`;
  const code = (err as NodeJS.ErrnoException).code;
  if (state.verdict && !state.verdict.ok) {
    return new DialError("ssh-handshake", label, `host key of ${where} refused: ${state.verdict.reason}`, { hint: state.verdict.fix, cause: err, errorClass: "permanent" });
  }
  if (err.level === "client-authentication") {
    return new DialError("ssh-handshake", label, `${where} did not accept ${state.material.source} for user ${target.user}`, {
      hint: `Add the matching public key to ~${target.user}/.ssh/authorized_keys on the host, or check the user name`, cause: err, errorClass: "permanent", loginRefused: true,
    });
  }
  if (err.level === "client-timeout") {
    return state.tcpUp
      ? new DialError("ssh-handshake", label, `no SSH handshake with ${where} within ${state.timeoutS} s`, { hint: "Is it an SSH server on that port? Is the link dropping packets?", cause: err, errorClass: "timeout" })
      : new DialError("tcp", label, `no TCP connection to ${where} within ${state.timeoutS} s`, { hint: "Check the address and port and that no firewall drops the traffic", cause: err, errorClass: "unreachable" });
  }
  if (!state.tcpUp) {
    const hint = code === "ECONNREFUSED" ? "Nothing listens there: is sshd running on the host, and is the port right?"
      : code === "ENOTFOUND" || code === "EAI_AGAIN" ? "The name does not resolve: check the address (or its HostName in ~/.ssh/config)"
      : "Check the address, the port and the network path to the host";
    return new DialError("tcp", label, `cannot connect to ${where}: ${err.message}`, { hint, cause: err, errorClass: "unreachable" });
  }
  if (err.level === "handshake" || /no matching|negotiat/i.test(err.message)) {
    return new DialError("ssh-handshake", label, `SSH negotiation with ${where} failed: ${err.message}`, {
      hint: "The server offers no algorithm this client supports; update the host's sshd or its Ciphers/KexAlgorithms/HostKeyAlgorithms", cause: err, errorClass: "permanent",
    });
  }
  return new DialError("ssh-handshake", label, `SSH handshake with ${where} failed: ${err.message}`, { cause: err, errorClass: "transient" });
}

function connectHop(host: ResolvedHost, target: HopTarget, material: AuthMaterial, sock: Duplex | undefined, signal: AbortSignal, pinned?: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const state: { tcpUp: boolean; verdict?: Verdict; timeoutS: number; material: AuthMaterial } = {
      tcpUp: !!sock, timeoutS: host.connectTimeoutMs / 1000, material,
    };
    const strict = host.config.strictHostKeyChecking !== false;
    const onAbort = () => { client.destroy(); reject(new DialError("ssh-handshake", host.label, `dial abandoned: ${String(signal.reason)}`, { errorClass: "timeout" })); };
    signal.addEventListener("abort", onAbort, { once: true });
    client.on("connect", () => { state.tcpUp = true; });
    client.once("ready", () => { signal.removeEventListener("abort", onAbort); resolve(client); });
    // ssh2 may emit more than one error while failing (e.g. a timeout, then "Connection
    // lost before handshake"): keep a listener for good, report only the first
    let failed = false;
    client.on("error", (err: Error & { level?: string }) => {
      if (failed) return;
      failed = true;
      signal.removeEventListener("abort", onAbort);
      client.destroy();
      reject(sshError(host.label, target, err, state));
    });
    const hostKeys = strict && !pinned
      ? preferredHostKeyAlgorithms(host.knownHostsPath, target.address, target.port) : undefined;
    const cfg: ConnectConfig = {
      username: target.user,
      readyTimeout: host.connectTimeoutMs,
      keepaliveInterval: host.keepaliveIntervalMs,
      keepaliveCountMax: host.keepaliveCount,
      privateKey: material.privateKey,
      passphrase: material.passphrase,
      agent: material.agent,
      algorithms: hostKeys ? { serverHostKey: hostKeys as any } : undefined,
      hostVerifier: (key: Buffer) => {
        if (!strict) return true;
        state.verdict = verifyHostKey(key, {
          host: target.address, port: target.port, knownHostsPath: host.knownHostsPath, pinned,
        });
        return state.verdict.ok;
      },
    };
    if (sock) cfg.sock = sock as any;
    else { cfg.host = target.address; cfg.port = target.port; }
    client.connect(cfg);
  });
}

function forward(hop: Client, label: string, target: Jump): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    hop.forwardOut("127.0.0.1", 0, target.address, target.port, (err, stream) => {
      if (err) reject(new DialError("tcp", label, `jump host cannot reach ${target.address}:${target.port}: ${err.message}`, {
        hint: "Check the address and port as seen from the jump host, and AllowTcpForwarding on the jump host", cause: err, errorClass: "unreachable",
      }));
      else resolve(stream);
    });
  });
}

function forwardSocket(ssh: Client, host: ResolvedHost): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    ssh.openssh_forwardOutStreamLocal(host.socketPath, (err, stream) => {
      if (!err) return resolve(stream);
      // OpenSSH answers a bare "open failed" both when the socket is missing and when
      // forwarding is disabled, so unless it says "prohibited" the hint names both.
      const prohibited = /prohibited/i.test(err.message);
      const forwardingHint = "the host's sshd must allow unix-socket forwarding: AllowStreamLocalForwarding yes (and no DisableForwarding) in its sshd_config, then reload sshd";
      reject(new DialError("libvirt-connect", host.label, `cannot open libvirt's socket ${host.socketPath} through SSH: ${err.message}`, {
        hint: prohibited
          ? `Forwarding is prohibited: ${forwardingHint}`
          : `Check that libvirtd runs on the host and that ${host.socketPath} is its socket (socketPath), that ${host.user} may open it (root or the libvirt group), and that ${forwardingHint}`,
        cause: err,
        errorClass: prohibited ? "permanent" : "unreachable",
      }));
    });
  });
}

function libvirtStage(host: ResolvedHost, err: unknown): DialError {
  const e = err as Error;
  if (err instanceof LibvirtError) {
    const denied = /auth|denied|polkit/i.test(e.message) || ["VIR_ERR_AUTH_FAILED", "VIR_ERR_ACCESS_DENIED", "VIR_ERR_AUTH_CANCELLED"].includes(err.codeName);
    return new DialError("libvirt-connect", host.label, `libvirt refused the connection (${err.api}): ${e.message}`, {
      hint: denied ? `Log in as root or a member of the libvirt group, or allow ${host.user} in polkit` : `Check the URI ${host.uri} (uri)`,
      cause: err, errorClass: denied ? "permanent" : "transient",
    });
  }
  if (e?.name === "RpcAbortError") {
    return new DialError("libvirt-connect", host.label, `libvirtd did not answer the handshake within ${host.connectTimeoutMs / 1000} s`, { hint: "Is libvirtd hung on the host?", cause: err, errorClass: "timeout" });
  }
  return new DialError("libvirt-connect", host.label, `libvirt handshake failed: ${e?.message ?? String(err)}`, {
    hint: `Is ${host.socketPath} really libvirtd's socket?`, cause: err, errorClass: "transient",
  });
}

export interface DialOptions {
  /** Called once the SSH handshake with the target host completed (counted by tests and benchmarks). */
  onSshReady?(): void;
}

/** Opens a Connection; the dial's own deadline is the host's connectTimeout. */
export async function dial(host: ResolvedHost, material: AuthMaterial, opts: DialOptions = {}): Promise<Connection> {
  const deadline = AbortSignal.timeout(host.connectTimeoutMs + 1000);
  const hops: Client[] = [];
  const chain: HopTarget[] = [...host.jumps, { address: host.hostname, port: host.port, user: host.user }];
  let stage: DialStage = "tcp";
  try {
    let sock: Duplex | undefined;
    for (let i = 0; i < chain.length; i++) {
      if (i > 0) sock = await forward(hops[i - 1], host.label, chain[i]);
      // a pinned fingerprint is the target's; jump hosts are checked against known_hosts
      const pinned = i === chain.length - 1 ? host.config.hostKeyFingerprint : undefined;
      hops.push(await connectHop(host, chain[i], material, sock, deadline, pinned));
    }
    opts.onSshReady?.();
    stage = "libvirt-connect";
    const stream = await forwardSocket(hops[hops.length - 1], host);
    let rpc: RpcClient;
    try {
      rpc = await RpcClient.open(stream, {
        uri: host.uri,
        keepaliveInterval: host.keepaliveIntervalMs / 1000,
        keepaliveCount: host.keepaliveCount,
        callTimeoutMs: host.callTimeoutMs,
      }, AbortSignal.timeout(host.connectTimeoutMs));
    } catch (err) {
      throw libvirtStage(host, err);
    }
    log(`host=${host.label} connected (${hops.length} SSH hop${hops.length > 1 ? "s" : ""})`);
    return new Connection(host, hops, rpc);
  } catch (err) {
    for (const h of hops.reverse()) h.end();
    if (err instanceof DialError) throw err;
    throw new DialError(stage, host.label, (err as Error).message, { cause: err, errorClass: "transient" });
  }
}
