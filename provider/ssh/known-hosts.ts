// Host key verification against OpenSSH known_hosts files (plain, hashed and
// [host]:port entries) or a pinned SHA256 fingerprint.
import * as crypto from "crypto";
import * as fs from "fs";

export interface KnownKey {
  line: number;
  type: string;
  key: Buffer;
  revoked: boolean;
}

/** OpenSSH's fingerprint of a key blob: "SHA256:" + unpadded base64. */
export function fingerprint(key: Buffer): string {
  return "SHA256:" + crypto.createHash("sha256").update(key).digest("base64").replace(/=+$/, "");
}

/** The key type named inside an SSH public key blob. */
export function keyType(key: Buffer): string {
  const n = key.readUInt32BE(0);
  return key.subarray(4, 4 + n).toString("latin1");
}

/** How known_hosts names a host: "host" on port 22, "[host]:port" otherwise. */
export function hostPattern(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    "^" +
      pattern
        .replace(/[.+^${}()|\\[\]]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".") +
      "$",
    "i",
  );
  return re.test(name);
}

function hostsFieldMatches(field: string, name: string): boolean {
  if (field.startsWith("|1|")) {
    const [, , salt, hash] = field.split("|");
    const mac = crypto.createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64");
    return mac === hash;
  }
  let matched = false;
  for (const p of field.split(",")) {
    if (p.startsWith("!")) {
      if (globMatch(p.slice(1), name)) return false;
    } else if (globMatch(p, name)) matched = true;
  }
  return matched;
}

/** Every key known_hosts holds for `host`:`port` (missing file = none). */
export function knownKeys(file: string, host: string, port: number): KnownKey[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const name = hostPattern(host, port);
  const out: KnownKey[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    let fields = line.split(/\s+/);
    let revoked = false;
    if (fields[0].startsWith("@")) {
      // only @revoked is understood; @cert-authority (CA-signed host certificates are not
      // supported) and any other marker never make a line trusted
      if (fields[0] !== "@revoked") return;
      revoked = true;
      fields = fields.slice(1);
    }
    if (fields.length < 3 || !hostsFieldMatches(fields[0], name)) return;
    out.push({ line: i + 1, type: fields[1], key: Buffer.from(fields[2], "base64"), revoked });
  });
  return out;
}

export type Verdict = { ok: true } | { ok: false; reason: string; fix: string };

/** Decides whether `presented` may be trusted for host:port. */
export function verifyHostKey(presented: Buffer, opts: { host: string; port: number; knownHostsPath: string; pinned?: string }): Verdict {
  const fp = fingerprint(presented);
  const type = keyType(presented);
  const line = `${hostPattern(opts.host, opts.port)} ${type} ${presented.toString("base64")}`;
  if (opts.pinned) {
    if (opts.pinned.replace(/=+$/, "") === fp) return { ok: true };
    return {
      ok: false,
      reason: `the host presented ${type} key ${fp}, not the pinned ${opts.pinned}`,
      fix: "If the host was reinstalled, pin its new fingerprint (ssh-keygen -lf on the host's /etc/ssh/ssh_host_*_key.pub) in hostKeyFingerprint",
    };
  }
  const known = knownKeys(opts.knownHostsPath, opts.host, opts.port);
  // as OpenSSH: a revoked key is refused wherever it is listed, before or after a trusting line
  const revoked = known.find((k) => k.revoked && k.key.equals(presented));
  if (revoked) {
    return {
      ok: false,
      reason: `the host presented ${type} key ${fp}, which ${opts.knownHostsPath} line ${revoked.line} marks @revoked`,
      fix: "Do not connect until the host has a new key",
    };
  }
  if (known.some((k) => k.key.equals(presented))) return { ok: true };
  const sameType = known.filter((k) => k.type === type && !k.revoked);
  if (sameType.length > 0) {
    return {
      ok: false,
      reason: `HOST KEY CHANGED: the host presented ${type} key ${fp}, but ${opts.knownHostsPath} line ${sameType.map((k) => k.line).join(",")} holds ${fingerprint(sameType[0].key)} (possible man-in-the-middle)`,
      fix: `If the host was legitimately reinstalled, replace that line with: ${line}`,
    };
  }
  return {
    ok: false,
    reason: `the host key is unknown: ${opts.knownHostsPath} has no ${type} key for ${hostPattern(opts.host, opts.port)}; the host presented ${fp}`,
    fix: `If that is the host's key (check with ssh-keygen -lf on the host), add this line to ${opts.knownHostsPath}: ${line}`,
  };
}

/** Host key algorithms in the order known_hosts suggests (so negotiation picks a key we know). */
export function preferredHostKeyAlgorithms(file: string, host: string, port: number): string[] | undefined {
  const types = [
    ...new Set(
      knownKeys(file, host, port)
        .filter((k) => !k.revoked)
        .map((k) => k.type),
    ),
  ];
  if (types.length === 0) return undefined;
  const expand = (t: string) => (t === "ssh-rsa" ? ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"] : [t]);
  return types.flatMap(expand);
}
