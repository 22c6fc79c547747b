// A resource's host input: its validation, how messages name it, and when two of them are
// the same host, the same machine or the same login.
import * as path from "path";
import { expandHome, HostConfig, resolveHost } from "../ssh/host";
import { deepEqual } from "./deep-equal";
import { Failures, reporter } from "./input-checks";
import { isUnknown } from "./unknown";

/** Validates the connection object; returns it with relative paths made absolute. */
export function checkHostInput(failures: Failures, host: unknown): HostConfig | undefined {
  if (isUnknown(host)) return host as HostConfig;
  if (!host || typeof host !== "object") {
    failures.push({ property: "host", reason: "host is required: { address, user?, port?, privateKeyPath?, … }" });
    return undefined;
  }
  const h = { ...(host as HostConfig) };
  const report = reporter(failures);
  const bad = (prop: string, reason: string) => report(`host.${prop}`, reason);
  if (typeof h.address !== "string" || !h.address.trim() || /\s/.test(h.address)) bad("address", "must be a host name, IP address or ~/.ssh/config alias");
  if (h.port !== undefined && (!Number.isInteger(h.port) || h.port < 1 || h.port > 65535))
    bad("port", `must be a port number 1-65535, got ${JSON.stringify(h.port)}`);
  if (h.user !== undefined && (typeof h.user !== "string" || !/^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(h.user)))
    bad("user", `must be a user name, got ${JSON.stringify(h.user)}`);
  // kept as written ("~/…", "./…"): resolved where each operation runs, so another checkout
  // or another home directory refreshes and destroys the stack with its own files
  for (const p of HOST_PATHS) {
    const v = h[p];
    if (v === undefined || isUnknown(v)) continue;
    if (typeof v !== "string" || !v) bad(p, "must be a file path");
  }
  if (h.socketPath !== undefined && (typeof h.socketPath !== "string" || !h.socketPath.startsWith("/")))
    bad("socketPath", "must be an absolute path on the host, e.g. /var/run/libvirt/libvirt-sock");
  if (h.uri !== undefined && (typeof h.uri !== "string" || !/^[a-z0-9+]+:\/\//.test(h.uri)))
    bad("uri", `must be a libvirt URI such as qemu:///system, got ${JSON.stringify(h.uri)}`);
  if (h.hostKeyFingerprint !== undefined && !/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(String(h.hostKeyFingerprint))) {
    bad("hostKeyFingerprint", 'must be "SHA256:" and 43 base64 characters, as ssh-keygen -lf prints it');
  }
  if (h.strictHostKeyChecking === false && h.hostKeyFingerprint !== undefined) {
    bad("strictHostKeyChecking", "is false, which would accept any host key and silently ignore the pinned hostKeyFingerprint: drop one of the two");
  }
  if (h.privateKey !== undefined && (typeof h.privateKey !== "string" || !h.privateKey.includes("PRIVATE KEY")))
    bad("privateKey", "must be the text of a private key (-----BEGIN … PRIVATE KEY-----)");
  for (const p of ["connectTimeout", "keepaliveInterval", "keepaliveCount"] as const) {
    const v = h[p];
    if (v !== undefined && (typeof v !== "number" || !(v > 0))) bad(p, `must be a positive number, got ${JSON.stringify(v)}`);
  }
  return h;
}

const HOST_PATHS = ["privateKeyPath", "knownHostsPath", "sshConfigPath"] as const;

/** The host with its file paths resolved here (`~` and relative ones), for comparing. */
function resolvedHere(h: HostConfig | undefined): HostConfig | undefined {
  if (!h || typeof h !== "object") return h;
  const out = { ...h };
  for (const p of HOST_PATHS) {
    const v = out[p];
    if (typeof v === "string" && v !== "none" && !isUnknown(v)) out[p] = path.resolve(expandHome(v));
  }
  return out;
}

/** The same host and login: paths count as the same file, however written (a record of an older version holds absolute ones). */
export function sameLogin(a: HostConfig | undefined, b: HostConfig | undefined): boolean {
  return deepEqual(resolvedHere(a), resolvedHere(b));
}

/** The host as messages name it (user@address[:port]), from its settings and ~/.ssh/config. */
export function hostLabel(host: HostConfig): string {
  return resolveHost(host).label;
}

/** The host fields that name the machine and socket (not how to log in): a change means another host. */
export function hostPlace(h: HostConfig | undefined): string {
  return JSON.stringify([h?.address, h?.port ?? 22, h?.user ?? "", h?.socketPath ?? "", h?.uri ?? ""]);
}

export function sameHost(a: HostConfig | undefined, b: HostConfig | undefined): boolean {
  return hostPlace(a) === hostPlace(b);
}

/** The same machine, socket and URI, whoever logs in (another user on it sees the same libvirt objects). */
export function sameMachine(a: HostConfig | undefined, b: HostConfig | undefined): boolean {
  return sameHost(a && { ...a, user: undefined }, b && { ...b, user: undefined });
}
