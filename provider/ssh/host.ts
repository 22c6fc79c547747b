// The connection object users give every resource, and its resolution through
// ~/.ssh/config into what the dialer and the pool need.
import { envSecondsMs } from "../units";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import SSHConfig from "ssh-config";

export interface HostConfig {
  /** Host name, IP address, or a Host alias of ~/.ssh/config. */
  address: string;
  port?: number;
  user?: string;
  privateKeyPath?: string;
  /** PEM/OpenSSH private key text (secret). */
  privateKey?: string;
  /** Passphrase of the private key (secret). */
  passphrase?: string;
  /** Use the ssh-agent at SSH_AUTH_SOCK (default when no key is given), or this socket path. */
  agent?: boolean | string;
  knownHostsPath?: string;
  /** Pin the host key instead of known_hosts: "SHA256:…" as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint?: string;
  /** Verify the host key (default true). false accepts any key: only for throwaway labs. */
  strictHostKeyChecking?: boolean;
  /** libvirtd's unix socket on the host. */
  socketPath?: string;
  /** Hypervisor URI opened on the host. */
  uri?: string;
  /** ~/.ssh/config to read (default ~/.ssh/config; "none" to ignore). */
  sshConfigPath?: string;
  /** SSH handshake deadline and libvirt handshake deadline, seconds. */
  connectTimeout?: number;
  /** SSH and libvirt keepalive interval, seconds; the link is declared dead after `keepaliveCount` misses. */
  keepaliveInterval?: number;
  keepaliveCount?: number;
  /** Where a Domain moving to this host sends its memory and disks: an address of it the old host reaches (default `address`). */
  migrationAddress?: string;
}

export interface Jump {
  address: string;
  port: number;
  user: string;
}

/** A host after ~/.ssh/config: every field the dialer needs, defaults filled. */
export interface ResolvedHost {
  config: HostConfig;
  /** As the user wrote it, for messages. */
  label: string;
  hostname: string;
  port: number;
  user: string;
  identityFiles: string[];
  jumps: Jump[];
  socketPath: string;
  uri: string;
  knownHostsPath: string;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCount: number;
  /** Bound on each libvirt call's reply (PULUMI_KVM_CALL_TIMEOUT seconds, default 120; 0 for none). */
  callTimeoutMs: number;
}

export const DEFAULT_SOCKET = "/var/run/libvirt/libvirt-sock";
/** The hypervisor URI the pool opens through the socket, as libvirt's remote driver sends it. */
export const DEFAULT_URI = "qemu:///system";

export function expandHome(p: string): string {
  return p === "~" ? os.homedir() : p.startsWith("~/") ? path.join(os.homedir(), p.slice(2)) : p;
}

function readSshConfig(file: string): SSHConfig | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined; // no ~/.ssh/config is the common case
  }
  try {
    return withoutCanonicalization(SSHConfig.parse(text));
  } catch {
    return undefined;
  }
}

/** The keywords of host name canonicalization, ignored here (docs/connection.md). */
const CANONICALIZATION = /^Canonical(izeHostname|Domains|izeFallbackLocal|izeMaxDots|izePermittedCNAMEs)$/i;

/**
 * The config without canonicalization: the ssh-config library would run `nslookup` for
 * each of CanonicalDomains (a process on the user's machine, on every preview) and let a
 * DNS answer choose which Host blocks apply.
 */
function withoutCanonicalization(cfg: SSHConfig): SSHConfig {
  for (let i = cfg.length - 1; i >= 0; i--) {
    const line = cfg[i];
    if (line.type !== SSHConfig.DIRECTIVE) continue;
    if (CANONICALIZATION.test(line.param)) cfg.splice(i, 1);
    else if ("config" in line) withoutCanonicalization(line.config);
  }
  return cfg;
}

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * ssh_config's settings for a host. `Match exec` is never run (it would run a command
 * through a shell on every preview): such a block does not match. ProxyCommand and the
 * other command keywords are read by nobody here.
 */
function settingsFor(cfg: SSHConfig | undefined, alias: string): Record<string, string | string[]> {
  return cfg?.compute(alias, { matchExec: false }) ?? {};
}

/** The TOKENS of OpenSSH's ssh_config(5) that the keywords honoured here accept. */
export interface Tokens {
  /** %h: the host name to connect to (after HostName) */
  h: string;
  /** %n: the host name as given */
  n: string;
  /** %p: the port */
  p: number;
  /** %r: the remote user */
  r: string;
}

/** Expands %h %n %p %r %u %d and %% as OpenSSH does; an unknown token is an error, as in OpenSSH. */
export function expandTokens(value: string, keyword: string, t: Tokens): string {
  const values: Record<string, string> = { "%": "%", h: t.h, n: t.n, p: String(t.p), r: t.r, u: os.userInfo().username, d: os.homedir() };
  return value.replace(/%(.?)/g, (_all, c: string) => {
    if (!(c in values)) throw new Error(`ssh config: ${keyword} ${value} has the token %${c}, which is not supported here (supported: %h %n %p %r %u %d %%)`);
    return values[c];
  });
}

function parseJump(spec: string, cfg: SSHConfig | undefined, defaultUser: string): Jump {
  // [user@]host[:port], where host may itself be an alias
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(spec.trim());
  if (!m) throw new Error(`ProxyJump entry "${spec}" is not [user@]host[:port]`);
  const alias = m[2].replace(/^\[|\]$/g, "");
  const c = settingsFor(cfg, alias);
  return {
    address: expandTokens(one(c.HostName) ?? alias, "HostName", { h: alias, n: alias, p: 22, r: "" }),
    port: Number(m[3] ?? one(c.Port) ?? 22),
    user: m[1] ?? one(c.User) ?? defaultUser,
  };
}

export function resolveHost(config: HostConfig): ResolvedHost {
  const cfgPath = config.sshConfigPath === "none" ? undefined : expandHome(config.sshConfigPath ?? "~/.ssh/config");
  const cfg = cfgPath ? readSshConfig(cfgPath) : undefined;
  const c = settingsFor(cfg, config.address);
  const user = config.user ?? one(c.User) ?? os.userInfo().username;
  const port = config.port ?? Number(one(c.Port) ?? 22);
  // HostName takes %h (the name as given); the file keywords take the rest, %h being the HostName
  const hostname = expandTokens(one(c.HostName) ?? config.address, "HostName", { h: config.address, n: config.address, p: port, r: user });
  const tokens: Tokens = { h: hostname, n: config.address, p: port, r: user };
  const proxyJump = one(c.ProxyJump);
  const identity = c.IdentityFile ? (Array.isArray(c.IdentityFile) ? c.IdentityFile : [c.IdentityFile]) : [];
  const keepaliveInterval = config.keepaliveInterval ?? 5;
  return {
    config,
    label: `${user}@${config.address}${port === 22 ? "" : `:${port}`}`,
    hostname,
    port,
    user,
    identityFiles: identity.map((f) => expandHome(expandTokens(f, "IdentityFile", tokens))),
    jumps: proxyJump && proxyJump !== "none" ? proxyJump.split(",").map((j) => parseJump(j, cfg, user)) : [],
    socketPath: config.socketPath ?? DEFAULT_SOCKET,
    uri: config.uri ?? DEFAULT_URI,
    knownHostsPath: expandHome(
      config.knownHostsPath ?? (c.UserKnownHostsFile ? expandTokens(one(c.UserKnownHostsFile)!, "UserKnownHostsFile", tokens) : "~/.ssh/known_hosts"),
    ),
    connectTimeoutMs: (config.connectTimeout ?? 20) * 1000,
    keepaliveIntervalMs: keepaliveInterval * 1000,
    keepaliveCount: config.keepaliveCount ?? 3,
    callTimeoutMs: callTimeoutMs(),
  };
}

/** The bound on each libvirt call's reply, and on a long call's progress: PULUMI_KVM_CALL_TIMEOUT seconds (default 120; 0 for none). */
export function callTimeoutMs(): number {
  return envSecondsMs("PULUMI_KVM_CALL_TIMEOUT", 120, true);
}

/**
 * One pooled connection per identity: user@address:port + socket path + URI, and a
 * digest of how to authenticate and verify (so a resource with other key material
 * never borrows, or is refused by, another's connection). No secret appears in it.
 */
export function hostIdentity(h: ResolvedHost): string {
  const via = h.jumps.map((j) => `${j.user}@${j.address}:${j.port}`).join(",");
  const c = h.config;
  const auth = crypto
    .createHash("sha256")
    .update(
      JSON.stringify([
        c.privateKeyPath,
        c.privateKey,
        c.passphrase,
        c.agent,
        h.identityFiles,
        h.knownHostsPath,
        c.hostKeyFingerprint,
        c.strictHostKeyChecking,
        h.connectTimeoutMs,
        h.keepaliveIntervalMs,
        h.keepaliveCount,
      ]),
    )
    .digest("hex")
    .slice(0, 12);
  return `${h.user}@${h.hostname}:${h.port}${via ? ` via ${via}` : ""} ${h.socketPath} ${h.uri} auth:${auth}`;
}
