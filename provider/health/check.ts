// Host health: libvirt version and hostname prove the daemon answers; the named pool
// must exist and run (capacity and free space reported); optionally a network must be
// active. Runs through HostPool.probe, so it shares the host's connection and never
// cuts off work on it. A pool or network verdict is decided after the calls return:
// a missing pool is an answer, not a broken link.
import { classify, ErrorClass } from "../errors";
import { isLibvirtError, POOL_STATES, PoolInfo, PoolState } from "../libvirt/api";
import { HostAccess, hostPool } from "../pool/host-pool";
import { DialError } from "../ssh/dial-error";
import { HostConfig } from "../ssh/host";

export type HealthStage = "ssh-material" | "tcp" | "ssh-handshake" | "libvirt-connect" | "pool" | "network" | "timeout";

export interface PoolHealth {
  name: string;
  state: string;
  capacityBytes: number;
  allocationBytes: number;
  availableBytes: number;
}

export interface HostHealth {
  host: string;
  ok: boolean;
  stage?: HealthStage;
  class?: ErrorClass;
  error?: string;
  libvirtVersion?: string;
  hostname?: string;
  pool?: PoolHealth;
  network?: { name: string; active: boolean };
  latencyMs: number;
}

export interface HealthOptions {
  pool?: string;
  network?: string;
  timeoutMs: number;
}

export function formatVersion(v: bigint): string {
  const n = Number(v);
  return `${Math.floor(n / 1_000_000)}.${Math.floor(n / 1000) % 1000}.${n % 1000}`;
}

type Lookup<T> = { value: T } | { error: unknown };
const outcome = <T>(p: Promise<T>): Promise<Lookup<T>> =>
  p.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

interface Answers {
  version?: bigint;
  hostname?: string;
  poolInfo?: Lookup<{ info: PoolInfo }>;
  network?: Lookup<boolean>;
}

/** What the probe asks: the daemon's identity (unless `storageOnly`), then pool and network. */
async function ask(pool: HostAccess, config: HostConfig, opts: HealthOptions, storageOnly: boolean): Promise<Answers> {
  return pool.probe(
    config,
    async (lv) => {
      const [version, hostname] = storageOnly ? [undefined, undefined] : await Promise.all([lv.libVersion(), lv.hostname()]);
      const poolInfo = opts.pool ? await outcome(lv.lookupPool(opts.pool).then(async (p) => ({ info: await lv.poolInfo(p) }))) : undefined;
      const network = opts.network ? await outcome(lv.lookupNetwork(opts.network).then((n) => lv.networkIsActive(n))) : undefined;
      return { version, hostname, poolInfo, network };
    },
    opts.timeoutMs,
  );
}

/**
 * Checks one host. With `storageOnly` the daemon's version and hostname are not asked
 * again (the memo has them) and only the pool and network verdicts are made.
 */
export async function checkHost(config: HostConfig, opts: HealthOptions, pool: HostAccess = hostPool, storageOnly = false): Promise<HostHealth> {
  const started = Date.now();
  const label = pool.describe(config).label;
  // Every error names its host once, whether or not the underlying message did.
  const labelled = (error: string | undefined) => (error === undefined || error.startsWith(`${label}: `) ? error : `${label}: ${error}`);
  const done = (h: Omit<HostHealth, "host" | "latencyMs">): HostHealth => ({ host: label, ...h, error: labelled(h.error), latencyMs: Date.now() - started });
  const fail = (stage: HealthStage, err: unknown, extra: Partial<HostHealth> = {}) => {
    const c = classify(err);
    return done({ ok: false, stage, class: c.errorClass, error: c.message, ...extra });
  };
  let answers: Answers;
  try {
    answers = await ask(pool, config, opts, storageOnly);
  } catch (err) {
    if (err instanceof DialError) return fail(err.stage, err);
    if (classify(err).errorClass === "timeout") return fail("timeout", err);
    return fail("libvirt-connect", err);
  }
  const base = answers.version === undefined ? {} : { libvirtVersion: formatVersion(answers.version), hostname: answers.hostname };
  let poolHealth: PoolHealth | undefined;
  if (opts.pool && answers.poolInfo) {
    if ("error" in answers.poolInfo) {
      const e = answers.poolInfo.error;
      const missing = isLibvirtError(e, "NO_STORAGE_POOL");
      return fail("pool", e, {
        ...base,
        error: missing
          ? `${label}: storage pool "${opts.pool}" does not exist (VIR_ERR_NO_STORAGE_POOL). Define it on the host (virsh pool-define-as ${opts.pool} dir --target /var/lib/libvirt/images; virsh pool-start ${opts.pool}) or set pool to an existing one`
          : `${label}: storage pool "${opts.pool}": ${classify(e).message}`,
      });
    }
    const { info } = answers.poolInfo.value;
    poolHealth = {
      name: opts.pool,
      state: POOL_STATES[info.state] ?? String(info.state),
      capacityBytes: Number(info.capacity),
      allocationBytes: Number(info.allocation),
      availableBytes: Number(info.available),
    };
    if (info.state !== PoolState.RUNNING) {
      return done({
        ok: false,
        stage: "pool",
        class: "permanent",
        ...base,
        pool: poolHealth,
        error: `${label}: storage pool "${opts.pool}" is ${poolHealth.state}, not running. Start it on the host (virsh pool-start ${opts.pool}) and mark it autostart`,
      });
    }
  }
  let network: { name: string; active: boolean } | undefined;
  if (opts.network && answers.network) {
    if ("error" in answers.network) {
      return fail("network", answers.network.error, {
        ...base,
        pool: poolHealth,
        error: `${label}: network "${opts.network}": ${classify(answers.network.error).message}. Define and start it on the host, or fix the network name`,
      });
    }
    network = { name: opts.network, active: answers.network.value };
    if (!network.active) {
      return done({
        ok: false,
        stage: "network",
        class: "permanent",
        ...base,
        pool: poolHealth,
        network,
        error: `${label}: network "${opts.network}" is not active. Start it on the host (virsh net-start ${opts.network})`,
      });
    }
  }
  return done({ ok: true, ...base, pool: poolHealth, network });
}
