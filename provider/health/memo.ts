// Health results memoised per host for a few seconds, so the check hooks of fifty
// resources on one host cost one probe of the daemon per preview; each distinct pool
// and network is then looked up once on the same connection.
import { HostAccess, hostPool } from "../pool/host-pool";
import { HostConfig } from "../ssh/host";
import { checkHost, HealthOptions, HostHealth } from "./check";

const MEMO_MS = 10_000;

interface Entry {
  at: number;
  daemon: Promise<HostHealth>;
  storage: Map<string, Promise<HostHealth>>;
}

const memo = new Map<string, Entry>();

export function memoisedHealth(config: HostConfig, opts: HealthOptions, pool: HostAccess = hostPool): Promise<HostHealth> {
  const identity = pool.describe(config).identity;
  let e = memo.get(identity);
  if (!e || Date.now() - e.at >= MEMO_MS) {
    e = { at: Date.now(), daemon: checkHost(config, { timeoutMs: opts.timeoutMs }, pool), storage: new Map() };
    memo.set(identity, e);
  }
  if (!opts.pool && !opts.network) return e.daemon;
  const key = `${opts.pool ?? ""}|${opts.network ?? ""}`;
  let verdict = e.storage.get(key);
  if (!verdict) {
    const daemon = e.daemon;
    verdict = daemon.then(async (d) => {
      if (!d.ok) return d;
      const s = await checkHost(config, opts, pool, true);
      return { ...s, libvirtVersion: d.libvirtVersion, hostname: d.hostname };
    });
    e.storage.set(key, verdict);
  }
  return verdict;
}
