// The per-host connection pool: one SSH connection per host identity, shared by every
// resource, health probe and CLI call in the process. Lazy dial, redial after the link
// died, a one-slot dial semaphore, a cap on concurrent mutating operations, and probes
// that never cut off the work sharing their link.
import { KvmError } from "../errors";
import { log } from "../log";
import { Libvirt } from "../libvirt/api";
import { AuthMaterialLoader } from "../ssh/auth-material";
import { connect, Connection } from "./connection";
import { healingLibvirt } from "./healing";
import { HostConfig, hostIdentity, resolveHost, ResolvedHost } from "../ssh/host";
import { Semaphore } from "./semaphore";

export interface PoolOptions {
  /** Concurrent mutating operations per host (libvirtd serves 5 requests per client at once). */
  maxMutating?: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Creates/updates/deletes take a slot of the per-host cap. */
  mutating?: boolean;
}

class HostEntry {
  conn: Connection | undefined;
  readonly dialSlot = new Semaphore(1);
  readonly mutating: Semaphore;
  readonly material: AuthMaterialLoader;
  /** A probe that timed out and whose calls have not returned yet. */
  abandonedProbe: Promise<unknown> | undefined;
  /** Completed dials, and the last dial failure with the dial count it ended. */
  dials = 0;
  handshakes = 0;
  lastFailure: { dial: number; err: unknown } | undefined;

  constructor(
    readonly host: ResolvedHost,
    maxMutating: number,
  ) {
    this.mutating = new Semaphore(maxMutating);
    this.material = new AuthMaterialLoader(host);
  }

  live(): Connection | undefined {
    return this.conn && !this.conn.closed ? this.conn : undefined;
  }
}

function raceSignal<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export class HostPool {
  private readonly entries = new Map<string, HostEntry>();
  private readonly maxMutating: number;

  constructor(opts: PoolOptions = {}) {
    this.maxMutating = opts.maxMutating ?? 4;
  }

  private entry(config: HostConfig): HostEntry {
    const host = resolveHost(config);
    const key = hostIdentity(host);
    let e = this.entries.get(key);
    if (!e) {
      e = new HostEntry(host, this.maxMutating);
      this.entries.set(key, e);
    }
    return e;
  }

  /** The host's label and identity as the pool sees them. */
  describe(config: HostConfig): { label: string; identity: string } {
    const e = this.entry(config);
    return { label: e.host.label, identity: hostIdentity(e.host) };
  }

  /** SSH handshakes completed for this host so far (one per dial). */
  handshakes(config: HostConfig): number {
    return this.entry(config).handshakes;
  }

  /** Starts dialing the host when it has no connection, without waiting: a failure is left for the next call to meet. */
  dialAhead(config: HostConfig): void {
    const e = this.entry(config);
    if (e.live()) return;
    log(`host=${e.host.label} dialled ahead of its first check`);
    this.connection(config).catch(() => undefined);
  }

  /** The live connection, dialing it first if needed. */
  async connection(config: HostConfig, signal?: AbortSignal): Promise<Connection> {
    const e = this.entry(config);
    const live = e.live();
    if (live) return live;
    const dialsBefore = e.dials;
    const release = await e.dialSlot.acquire(signal);
    const after = e.live();
    if (after) {
      release();
      return after;
    }
    // a dial that failed while we waited answers for us too: no stampede of redials
    if (e.lastFailure && e.lastFailure.dial > dialsBefore) {
      release();
      throw e.lastFailure.err;
    }
    // the dial continues for the others even if this caller's signal gives up
    const dialing = this.dialEntry(e).finally(release);
    return raceSignal(dialing, signal);
  }

  private async dialEntry(e: HostEntry): Promise<Connection> {
    try {
      const material = e.material.load();
      const conn = await connect(e.host, material, {
        onSshReady: () => {
          e.handshakes++;
        },
      });
      e.material.confirm(material);
      e.conn = conn;
      e.dials++;
      e.lastFailure = undefined;
      return conn;
    } catch (err) {
      e.dials++;
      e.lastFailure = { dial: e.dials, err };
      throw err;
    }
  }

  /**
   * Runs `fn` with the host's libvirt, dialled first. Each call of `fn` uses the live
   * connection: a link that broke is dropped and redialled, and a read or a call never
   * sent is repeated once on the new link (healing.ts); any other error leaves the link alone.
   * Once `opts.signal` aborts, every further call of `fn` fails with its reason.
   */
  async run<T>(config: HostConfig, fn: (lv: Libvirt, signal?: AbortSignal) => Promise<T>, opts: RunOptions = {}): Promise<T> {
    const e = this.entry(config);
    const release = opts.mutating ? await e.mutating.acquire(opts.signal) : undefined;
    try {
      await this.connection(config, opts.signal);
      return await fn(
        healingLibvirt({
          live: (signal) => {
            // a stopped run makes no further call
            opts.signal?.throwIfAborted();
            return this.connection(config, signal ?? opts.signal);
          },
          broken: (conn) => {
            if (e.conn !== conn) return;
            e.conn = undefined;
            conn.close().catch(() => undefined);
          },
        }),
        opts.signal,
      );
    } finally {
      release?.();
    }
  }

  /**
   * Runs health calls on the shared connection with a deadline. At the deadline the
   * probe stops waiting and reports Timeout, leaving its calls and the link alone; until
   * those calls return, further probes of the host report Timeout at once.
   */
  async probe<T>(config: HostConfig, fn: (lv: Libvirt) => Promise<T>, timeoutMs: number): Promise<T> {
    const e = this.entry(config);
    if (e.abandonedProbe) {
      throw new KvmError("timeout", "health probe busy: the previous probe of this host has not returned yet", {
        host: e.host.label,
        fix: "The host or its link is slow or hung; the connection is kept and checked by keepalive",
      });
    }
    const work = this.run(config, (lv) => fn(lv));
    const expired = new KvmError("timeout", `health probe did not finish within ${timeoutMs} ms`, {
      host: e.host.label,
      fix: "Check the host's load and the link; raise the timeout if the host is just slow",
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(expired), timeoutMs);
    });
    try {
      return await Promise.race([work, deadline]);
    } catch (err) {
      if (err === expired) {
        const outstanding = work
          .catch(() => undefined)
          .finally(() => {
            if (e.abandonedProbe === outstanding) e.abandonedProbe = undefined;
          });
        e.abandonedProbe = outstanding;
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Warns now about key material that cannot be read (never fails). */
  warnEarly(config: HostConfig): void {
    this.entry(config).material.warnEarly();
  }

  async closeAll(): Promise<void> {
    const conns = [...this.entries.values()].map((e) => e.live()).filter((c): c is Connection => !!c);
    for (const e of this.entries.values()) e.conn = undefined;
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
  }
}

/** What callers above the pool use of it (a test may give its own). */
export type HostAccess = Pick<HostPool, "run" | "probe" | "describe" | "warnEarly">;

/** The process-wide pool every resource, probe and CLI call shares. */
export const hostPool = new HostPool();
