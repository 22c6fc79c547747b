// Dialing one host over SSH (through ProxyJump hops if configured) with strict host
// key verification, then a streamlocal forward to libvirtd's socket. The result is a
// byte stream and the sessions carrying it: what flows through it is not this
// layer's business. Every failure is a DialError tagged with its stage.
import { Duplex } from "stream";
import { Client, ConnectConfig } from "ssh2";
import { AuthMaterial } from "./auth-material";
import { coalescingConnection } from "./coalescing-socket";
import { DialError, DialStage } from "./dial-error";
import { endHops, HopState, HopTarget, hopFailure, jumpFailure, socketFailure } from "./dial-failures";
import { Jump, ResolvedHost } from "./host";
import { preferredHostKeyAlgorithms, verifyHostKey } from "./known-hosts";

/** A forwarded socket and the SSH sessions that carry it. */
export class SshLink {
  private ended = false;

  constructor(
    readonly host: ResolvedHost,
    readonly stream: Duplex,
    private readonly hops: Client[],
  ) {}

  /** Calls `fn` once when any session of the chain fails or closes. */
  onClose(fn: (err: Error) => void): void {
    let told = false;
    const once = (err: Error) => {
      if (!told) {
        told = true;
        fn(err);
      }
    };
    for (const hop of this.hops) {
      hop.on("error", (err) => once(new Error(`SSH link to ${this.host.label} failed: ${err.message}`, { cause: err })));
      hop.on("close", () => once(new Error(`SSH link to ${this.host.label} closed`)));
    }
  }

  /** Ends the sessions (idempotent). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    endHops(this.hops);
  }
}

function connectHop(
  host: ResolvedHost,
  target: HopTarget,
  material: AuthMaterial,
  sock: Duplex | undefined,
  signal: AbortSignal,
  pinned?: string,
): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    const state: HopState = { tcpUp: !!sock, timeoutS: host.connectTimeoutMs / 1000, material };
    const strict = host.config.strictHostKeyChecking !== false;
    const onAbort = () => {
      client.destroy();
      reject(new DialError("ssh-handshake", host.label, `dial abandoned: ${String(signal.reason)}`, { errorClass: "timeout" }));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    client.on("connect", () => {
      state.tcpUp = true;
    });
    client.once("ready", () => {
      signal.removeEventListener("abort", onAbort);
      resolve(client);
    });
    // ssh2 may emit more than one error while failing (e.g. a timeout, then "Connection
    // lost before handshake"): keep a listener for good, report only the first
    let failed = false;
    client.on("error", (err: Error & { level?: string }) => {
      if (failed) return;
      failed = true;
      signal.removeEventListener("abort", onAbort);
      client.destroy();
      reject(hopFailure(host.label, target, err, state));
    });
    const hostKeys = strict && !pinned ? preferredHostKeyAlgorithms(host.knownHostsPath, target.address, target.port) : undefined;
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
          host: target.address,
          port: target.port,
          knownHostsPath: host.knownHostsPath,
          pinned,
        });
        return state.verdict.ok;
      },
    };
    // the first hop's TCP socket is ours (ssh2 takes it while it connects), so its writes coalesce
    cfg.sock = sock ?? coalescingConnection(target.port, target.address);
    client.connect(cfg);
  });
}

function forward(hop: Client, label: string, target: Jump): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    hop.forwardOut("127.0.0.1", 0, target.address, target.port, (err, stream) => (err ? reject(jumpFailure(label, target, err)) : resolve(stream)));
  });
}

function forwardSocket(ssh: Client, host: ResolvedHost): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    ssh.openssh_forwardOutStreamLocal(host.socketPath, (err, stream) => (err ? reject(socketFailure(host, err)) : resolve(stream)));
  });
}

export interface DialOptions {
  /** Called once the SSH handshake with the target host completed (counted by tests and benchmarks). */
  onSshReady?(): void;
}

/** Opens the SSH chain and the forward to libvirtd's socket, within the host's connectTimeout. */
export async function dialSsh(host: ResolvedHost, material: AuthMaterial, opts: DialOptions = {}): Promise<SshLink> {
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
    return new SshLink(host, await forwardSocket(hops[hops.length - 1], host), hops);
  } catch (err) {
    endHops(hops);
    if (err instanceof DialError) throw err;
    throw new DialError(stage, host.label, (err as Error).message, { cause: err, errorClass: "transient" });
  }
}
