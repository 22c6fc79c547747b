// What each way of failing to dial means to the user: the stage, the class, and the
// hint for the fix. Only SSH's own failures: libvirt's handshake is judged by the pool.
import { Client } from "ssh2";
import { AuthMaterial } from "./auth-material";
import { DialError } from "./dial-error";
import { Jump, ResolvedHost } from "./host";
import { Verdict } from "./known-hosts";

export interface HopTarget {
  address: string;
  port: number;
  user: string;
}

/** What the dial of one hop learnt before it failed. */
export interface HopState {
  tcpUp: boolean;
  verdict?: Verdict;
  timeoutS: number;
  material: AuthMaterial;
}

/** An ssh2 client error, at the stage the hop had reached. */
export function hopFailure(label: string, target: HopTarget, err: Error & { level?: string }, state: HopState): DialError {
  // The message starts with the host's label; name the hop only when it is another
  // machine (a jump host), so no message says the host twice.
  const hop = `${target.user}@${target.address}:${target.port}`;
  const where = hop === label ? "the host" : hop;
  const code = (err as NodeJS.ErrnoException).code;
  if (state.verdict && !state.verdict.ok) {
    return new DialError("ssh-handshake", label, `host key of ${where} refused: ${state.verdict.reason}`, {
      hint: state.verdict.fix,
      cause: err,
      errorClass: "permanent",
    });
  }
  if (err.level === "client-authentication") {
    return new DialError("ssh-handshake", label, `${where} did not accept ${state.material.source} for user ${target.user}`, {
      hint: `Add the matching public key to ~${target.user}/.ssh/authorized_keys on the host, or check the user name`,
      cause: err,
      errorClass: "permanent",
      loginRefused: true,
    });
  }
  if (err.level === "client-timeout") {
    return state.tcpUp
      ? new DialError("ssh-handshake", label, `no SSH handshake with ${where} within ${state.timeoutS} s`, {
          hint: "Is it an SSH server on that port? Is the link dropping packets?",
          cause: err,
          errorClass: "timeout",
        })
      : new DialError("tcp", label, `no TCP connection to ${where} within ${state.timeoutS} s`, {
          hint: "Check the address and port and that no firewall drops the traffic",
          cause: err,
          errorClass: "unreachable",
        });
  }
  if (!state.tcpUp) {
    const hint =
      code === "ECONNREFUSED"
        ? "Nothing listens there: is sshd running on the host, and is the port right?"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? "The name does not resolve: check the address (or its HostName in ~/.ssh/config)"
          : "Check the address, the port and the network path to the host";
    // a name that does not resolve is a wrong setting, not a host that is down
    const errorClass = code === "ENOTFOUND" ? "permanent" : "unreachable";
    return new DialError("tcp", label, `cannot connect to ${where}: ${err.message}`, { hint, cause: err, errorClass });
  }
  if (err.level === "handshake" || /no matching|negotiat/i.test(err.message)) {
    return new DialError("ssh-handshake", label, `SSH negotiation with ${where} failed: ${err.message}`, {
      hint: "The server offers no algorithm this client supports; update the host's sshd or its Ciphers/KexAlgorithms/HostKeyAlgorithms",
      cause: err,
      errorClass: "permanent",
    });
  }
  return new DialError("ssh-handshake", label, `SSH handshake with ${where} failed: ${err.message}`, { cause: err, errorClass: "transient" });
}

/** A jump host could not open the TCP forward to the next hop. */
export function jumpFailure(label: string, target: Jump, err: Error): DialError {
  return new DialError("tcp", label, `jump host cannot reach ${target.address}:${target.port}: ${err.message}`, {
    hint: "Check the address and port as seen from the jump host, and AllowTcpForwarding on the jump host",
    cause: err,
    errorClass: "unreachable",
  });
}

/**
 * The target refused the streamlocal forward to libvirtd's socket. OpenSSH answers a
 * bare "open failed" both when the socket is missing and when forwarding is disabled,
 * so unless it says "prohibited" the hint names both.
 */
export function socketFailure(host: ResolvedHost, err: Error): DialError {
  const prohibited = /prohibited/i.test(err.message);
  const forwardingHint =
    "the host's sshd must allow unix-socket forwarding: AllowStreamLocalForwarding yes (and no DisableForwarding) in its sshd_config, then reload sshd";
  return new DialError("libvirt-connect", host.label, `cannot open libvirt's socket ${host.socketPath} through SSH: ${err.message}`, {
    hint: prohibited
      ? `Forwarding is prohibited: ${forwardingHint}`
      : `Check that libvirtd runs on the host and that ${host.socketPath} is its socket (socketPath), that ${host.user} may open it (root or the libvirt group), and that ${forwardingHint}`,
    cause: err,
    errorClass: prohibited ? "permanent" : "unreachable",
  });
}

/** Ends the SSH sessions of a chain, innermost first. */
export function endHops(hops: Client[]): void {
  for (const h of [...hops].reverse()) h.end();
}
