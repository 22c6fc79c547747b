// What every resource kind shares: unknowns during preview, input validation of the
// connection object and names, the host check of `check`, and errors for Pulumi.
import * as path from "path";
import { explain, isLoginRefused, KvmError } from "../errors";
import { warn } from "../log";
import type { Libvirt } from "../libvirt/api";
import type { HostHealth } from "../health/check";
import { ResourceContext } from "./context";
import { expandHome, HostConfig, resolveHost } from "../ssh/host";

/** The value Pulumi passes for inputs not known yet (preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(isUnknown);
  if (v && typeof v === "object") return Object.values(v).some(isUnknown);
  return false;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

export type Failures = CheckFailure[];

/** Reports one property's failure; the reason follows the property's name. */
export function reporter(failures: Failures): (property: string, reason: string) => void {
  return (property, reason) => failures.push({ property, reason: `${property}: ${reason}` });
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
export const MAX_NAME = 100;

/** A libvirt object name: no "/", no "..", no spaces or XML-special characters. */
export function nameProblem(v: unknown): string | undefined {
  if (v === undefined || v === null || v === "") return "is required";
  if (typeof v !== "string") return `must be a string, got ${typeof v}`;
  if (v.length > MAX_NAME) return `"${v.slice(0, 20)}…" is ${v.length} characters; at most ${MAX_NAME} are allowed`;
  if (v.includes("/")) return `"${v}" contains "/": names become file names in the pool; use letters, digits, ".", "_", "-", "+"`;
  if (v.includes("..")) return `"${v}" contains "..": use letters, digits and single dots`;
  if (!NAME_RE.test(v)) return `"${v}" has characters libvirt names should not have; use letters, digits, ".", "_", "-", "+", starting with a letter or digit`;
  return undefined;
}

export function checkName(failures: Failures, property: string, v: unknown): void {
  if (isUnknown(v)) return;
  const p = nameProblem(v);
  if (p) failures.push({ property, reason: `${property} ${p}` });
}

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

/** The host check of `check`: reachable, pool exists and runs (memoised per host). */
/**
 * Pools and networks this deployment makes, as their checks told this process: a preview
 * runs before any exists, so a resource that goes into one (an Image into the program's
 * StoragePool, a NIC on its Network) does not find it on the host yet.
 */
const planned = new Set<string>();
const plannedKey = (host: HostConfig, kind: "pool" | "network", name: string) => `${hostPlace(host)} ${kind} ${name}`;

/** Notes a pool or network a resource new to the stack makes (its check passed). */
export function planObject(host: HostConfig, kind: "pool" | "network", name: string): void {
  if (!isUnknown(host) && !isUnknown(name)) planned.add(plannedKey(host, kind, name));
}

/** No answer at all (refused, timed out, no SSH handshake), as opposed to a host that answered no: a wrong login, key, socket or pool. */
const didNotAnswer = (h: HostHealth) =>
  (h.class === "unreachable" || h.class === "timeout") && (h.stage === "tcp" || h.stage === "ssh-handshake" || h.stage === "timeout");

/** The hosts this process warned did not answer: each is named once, not once per resource. */
const warnedHosts = new Set<string>();

/** How long a check waits on a host before its verdict: the host check's bound. */
const CHECK_BOUND_MS = 15_000;

/**
 * What a check asks the host beyond its health (names taken, what the hypervisor offers):
 * undefined when the host is not to be asked (PULUMI_KVM_SKIP_HOST_CHECK) or cannot be
 * (the host check reports that).
 */
export async function askInCheck<T>(pool: ResourceContext["pool"], host: HostConfig, ask: (lv: Libvirt) => Promise<T>): Promise<T | undefined> {
  if (process.env.PULUMI_KVM_SKIP_HOST_CHECK === "1") return undefined;
  try {
    return await pool.probe(host, ask, CHECK_BOUND_MS);
  } catch {
    return undefined;
  }
}

export async function checkHostHealth(
  ctx: ResourceContext,
  failures: Failures,
  host: HostConfig,
  asked: string | undefined,
  askedNetwork?: string,
): Promise<{ availableBytes?: number }> {
  if (failures.length || isUnknown(host) || isUnknown(asked) || isUnknown(askedNetwork)) return {};
  // one this deployment makes is not on the host yet: only the host itself is checked for it
  const pool = asked && planned.has(plannedKey(host, "pool", asked)) ? undefined : asked;
  const network = askedNetwork && planned.has(plannedKey(host, "network", askedNetwork)) ? undefined : askedNetwork;
  if (process.env.PULUMI_KVM_SKIP_HOST_CHECK === "1") {
    // no host check asked for: key material that cannot be read only warns now
    ctx.pool.warnEarly(host);
    return {};
  }
  const h = await ctx.health(host, { pool, network, timeoutMs: CHECK_BOUND_MS }, ctx.pool);
  if (!h.ok && didNotAnswer(h)) {
    // a host that is down fails its own resources when Pulumi acts on them, not the whole
    // preview or update: the other hosts of a fleet go ahead
    const label = hostLabel(host);
    if (!warnedHosts.has(label)) {
      warn(
        `${label} did not answer (${h.error} [stage: ${h.stage}]); its resources were not checked against it and fail if it is still down when Pulumi acts on them; the other hosts' go ahead`,
      );
    }
    warnedHosts.add(label);
  } else if (!h.ok) {
    const property = h.stage === "pool" ? "pool" : h.stage === "network" ? "networkInterfaces" : "host";
    failures.push({ property, reason: `${h.error ?? "host check failed"} [stage: ${h.stage}]` });
  }
  return { availableBytes: h.pool?.availableBytes };
}

/** The host as messages name it (user@address[:port]), from its settings and ~/.ssh/config. */
export function hostLabel(host: HostConfig): string {
  return resolveHost(host).label;
}

/** The host fields that name the machine and socket (not how to log in): a change means another host. */
export function hostPlace(h: HostConfig | undefined): string {
  return JSON.stringify([h?.address, h?.port ?? 22, h?.user ?? "", h?.socketPath ?? "", h?.uri ?? ""]);
}

/** The olds `check` was given when the resource is in the stack (the engine sends {} for a new one). */
export function recorded<T extends { host?: unknown; name?: unknown }>(olds: T | undefined): T | undefined {
  return olds?.host && olds.name ? olds : undefined;
}

export function sameHost(a: HostConfig | undefined, b: HostConfig | undefined): boolean {
  return hostPlace(a) === hostPlace(b);
}

/** The same machine, socket and URI, whoever logs in (another user on it sees the same libvirt objects). */
export function sameMachine(a: HostConfig | undefined, b: HostConfig | undefined): boolean {
  return sameHost(a && { ...a, user: undefined }, b && { ...b, user: undefined });
}

/** A value's canonical form: keys sorted, absent (undefined) members dropped. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => canonical(x) ?? null);
  if (v && typeof v === "object") {
    const members = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(members)
        .sort()
        .filter((k) => members[k] !== undefined)
        .map((k) => [k, canonical(members[k])]),
    );
  }
  return v;
}

/** Equal as Pulumi stores them: key order and absent members do not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));
}

/**
 * explain() for refresh and destroy, which log in with what the stack recorded: when
 * that login is refused after a key rotation, say how to record the new one.
 */
export function explainRecorded(err: unknown, host: string, what: string): KvmError {
  if (!isLoginRefused(err)) return explain(err, host, what);
  return new KvmError("permanent", `${what}: ${(err as Error).message}`, {
    host,
    cause: err,
    fix: "refresh and destroy log in with the credentials the stack recorded at the last successful update. If you changed them in the program, run `pulumi up` first: it records the new credentials and changes nothing on the host. Or authorize the old key again until then",
  });
}

/** A true/false input, when given. */
export function checkBoolean(failures: Failures, property: string, v: unknown): void {
  if (v !== undefined && !isUnknown(v) && typeof v !== "boolean")
    failures.push({ property, reason: `${property} must be true or false, got ${JSON.stringify(v)}` });
}

export const MAC_RE = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

/** A Linux network interface name (a bridge, a NIC): at most 15 characters. */
export const IFACE_RE = /^[A-Za-z0-9_.-]{1,15}$/;

/** Says that an object of a recorded name is someone else's and was left alone. */
export function leftAlone(host: string, what: string, action: string): void {
  warn(`${host}: ${what} is not the one this stack made (its identity differs: removed and made again outside Pulumi?); ${action} left it alone`);
}
