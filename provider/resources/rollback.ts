// Undoing what a create made. Each object is journalled (journal.ts) before the call that
// makes it, so a create stopped half-way, by a failure or by Ctrl-C, never leaves an object
// Pulumi does not know about: it is removed at once on a fresh pooled call (a link that
// died mid-operation is redialled first) or, when the host stays out of reach or the
// process is gone, by the next operation on that host. An object is removed only while it
// is still the one made.
import * as crypto from "crypto";
import { warn } from "../log";
import { HostConfig } from "../ssh/host";
import { OWNER_NS } from "../xml/domain";
import { hostPlace } from "./common";
import { HostAccess } from "./context";
import { changeJournal, Entry, inFlight, journalFile, Made, readJournal } from "./journal";
import { DomainState, isLibvirtError, Libvirt, LibvirtError, UndefineFlags } from "../libvirt/api";

export type { Made } from "./journal";

export interface Leftover extends Made {
  host: HostConfig;
}

/** The codes that mean the object (or the pool holding it) no longer exists. */
const gone = (err: unknown) => isLibvirtError(err, "NO_DOMAIN", "NO_STORAGE_VOL", "NO_STORAGE_POOL", "NO_NETWORK");
const hexOf = (r: { uuid: Buffer }) => r.uuid.toString("hex");

/** How each kind of leftover is removed: false when the object of that name is not the one made. */
const removers: Record<Made["kind"], (lv: Libvirt, l: Made) => Promise<boolean>> = {
  async volume(lv, l) {
    const vol = await lv.lookupVolume(await lv.lookupPool(l.pool ?? "default"), l.name);
    if (l.id && vol.key !== l.id) return false;
    await lv.deleteVolume(vol);
    return true;
  },
  async domain(lv, l) {
    const dom = await lv.lookupDomain(l.name);
    if (l.id && hexOf(dom) !== l.id) return false;
    try {
      await lv.domainMetadata(dom, OWNER_NS);
    } catch (err) {
      if (isLibvirtError(err, "NO_DOMAIN_METADATA")) return false;
      throw err;
    }
    if ((await lv.domainState(dom)).state !== DomainState.SHUTOFF) await lv.destroyDomain(dom).catch(() => undefined);
    await lv.undefineDomain(dom, UndefineFlags.NVRAM | UndefineFlags.MANAGED_SAVE | UndefineFlags.SNAPSHOTS_METADATA | UndefineFlags.CHECKPOINTS_METADATA);
    return true;
  },
  async pool(lv, l) {
    const pool = await lv.lookupPool(l.name);
    if (l.id && hexOf(pool) !== l.id) return false;
    if (await lv.poolIsActive(pool)) await lv.stopPool(pool);
    // the directory the create built goes too, if nothing was put into it
    await lv.deletePoolStorage(pool).catch(() => undefined);
    await lv.undefinePool(pool);
    return true;
  },
  async network(lv, l) {
    const net = await lv.lookupNetwork(l.name);
    if (l.id && hexOf(net) !== l.id) return false;
    if (await lv.networkIsActive(net)) await lv.stopNetwork(net);
    await lv.undefineNetwork(net);
    return true;
  },
};

/** Removes a leftover if it is still the object made; "other" when something else now has its name. */
export async function removeLeftover(lv: Libvirt, l: Made): Promise<"removed" | "gone" | "other"> {
  try {
    return (await removers[l.kind](lv, l)) ? "removed" : "other";
  } catch (err) {
    if (gone(err)) return "gone";
    throw err;
  }
}

/**
 * Removes `leftover` now, or leaves it journalled for the next operation on its host.
 * `token` names its journal entry (written before it was made); without one a new entry is written.
 */
export async function rollback(pool: HostAccess, leftover: Leftover, attempts = 3, token?: string): Promise<void> {
  const { host, ...made } = leftover;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await pool.run(host, (lv) => removeLeftover(lv, made));
      if (token) await changeJournal((entries) => entries.filter((e) => e.token !== token));
      return;
    } catch (err) {
      if (attempt === attempts) {
        // nobody is making it any more: the next operation on the host removes it
        const entry: Entry = { ...made, place: hostPlace(host) };
        await changeJournal((entries) => [...entries.filter((e) => !token || e.token !== token), entry]);
        warn(`could not remove ${leftover.kind} ${leftover.name} on ${pool.describe(host).label} after a failed create (${(err as Error).message}); it is journalled in ${journalFile()} and removed by the next operation on that host`);
        return;
      }
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

/** What one create makes on its host, journalled object by object before each is made. */
export class Making {
  private readonly made: { object: Made; token: string }[] = [];

  constructor(private readonly pool: HostAccess, private readonly host: HostConfig) {}

  /**
   * Makes one object with `call`, journalled first: if this process stops before the
   * create returns, the next operation on the host removes it. An error libvirt answered
   * means nothing was made; a broken link leaves it unknown, so it stays to be undone.
   */
  async make<T>(object: Made, call: () => Promise<T>, idOf: (made: T) => string): Promise<T> {
    const token = crypto.randomBytes(8).toString("hex");
    await changeJournal((entries) => [...entries, { ...object, place: hostPlace(this.host), pid: process.pid, token }]);
    let made: T;
    try {
      made = await call();
    } catch (err) {
      if (err instanceof LibvirtError) await changeJournal((entries) => entries.filter((e) => e.token !== token));
      else this.made.push({ object, token });
      throw err;
    }
    this.made.push({ object: { ...object, id: idOf(made) }, token });
    return made;
  }

  /** The create returned, or left a VM the engine records: what it made is the stack's now. */
  async kept(): Promise<void> {
    const tokens = new Set(this.made.splice(0).map((m) => m.token));
    if (tokens.size) await changeJournal((entries) => entries.filter((e) => !e.token || !tokens.has(e.token)));
  }

  /** The create failed or was stopped: removes what it made, newest first. */
  async undo(): Promise<void> {
    for (const { object, token } of this.made.splice(0).reverse()) await rollback(this.pool, { ...object, host: this.host }, 3, token);
  }
}

/** Removes journalled leftovers of this host (creates still in flight excepted); called before creating or deleting anything on it. */
export async function clearLeftovers(host: HostConfig, lv: Libvirt): Promise<void> {
  const place = hostPlace(host);
  const mine = (e: Entry) => e.place === place && !inFlight(e);
  if (!readJournal().some(mine)) return;
  await changeJournal(async (entries) => {
    const kept: Entry[] = [];
    for (const e of entries) {
      if (!mine(e)) kept.push(e);
      else if ((await removeLeftover(lv, e).catch(() => "failed")) === "failed") kept.push(e);
    }
    return kept;
  });
}

/** Whether this object is a journalled leftover: the next operation removes it, so its name counts as free. */
export function isJournalled(host: HostConfig, kind: Made["kind"], name: string, pool?: string): boolean {
  const place = hostPlace(host);
  return readJournal().some((e) => e.place === place && !inFlight(e) && e.kind === kind && e.name === name && (kind !== "volume" || (e.pool ?? "default") === pool));
}
