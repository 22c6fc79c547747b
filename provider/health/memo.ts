// Health results memoised per host (and pool/network) for a few seconds, so the check
// hooks of fifty resources on one host cost one probe per preview.
import { HostPool, hostPool } from "../pool/host-pool";
import { HostConfig } from "../ssh/host";
import { checkHost, HealthOptions, HostHealth } from "./check";

const MEMO_MS = 5000;
const memo = new Map<string, { at: number; result: Promise<HostHealth> }>();

/** Number of probes actually run (not served from the memo), per host identity. */
export const probeCounts = new Map<string, number>();

export function memoisedHealth(config: HostConfig, opts: HealthOptions, pool: HostPool = hostPool): Promise<HostHealth> {
  const identity = pool.describe(config).identity;
  const key = `${identity}|${opts.pool ?? ""}|${opts.network ?? ""}`;
  const hit = memo.get(key);
  if (hit && Date.now() - hit.at < MEMO_MS) return hit.result;
  probeCounts.set(identity, (probeCounts.get(identity) ?? 0) + 1);
  const result = checkHost(config, opts, pool);
  memo.set(key, { at: Date.now(), result });
  return result;
}
