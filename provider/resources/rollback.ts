// Undoing what a create made. Each object is journalled (journal.ts) before the call that
// makes it, so a create stopped half-way, by a failure or by Ctrl-C, never leaves an object
// Pulumi does not know about: it is removed at once on a fresh pooled call (a link that
// died mid-operation is redialled first) or, when the host stays out of reach or the
// process is gone, by the next operation on that host. An object is removed only while it
// is still the one made.
import * as crypto from "crypto";
import { classify } from "../errors";
import { warn } from "../log";
import { HostConfig } from "../ssh/host";
import { hostLabel, hostPlace } from "./host-inputs";
import { HostAccess } from "./context";
import { changeJournal, Entry, inFlight, journalEntries, Made } from "./journal";
import { journalFile } from "../state-dir";
import { isLibvirtError, Libvirt, LibvirtError } from "../libvirt/api";
import type { JournalledObject } from "./object-kind";
import { GONE_CODES, OBJECTS } from "../kinds/objects";

export type { Made } from "./journal";

export interface Leftover extends Made {
  host: HostConfig;
}

/** The codes that mean the object (or the pool holding it) no longer exists. */
const gone = (err: unknown) => isLibvirtError(err, ...GONE_CODES);

/** How each journalled kind is found under its name, proven to be the one made, and removed (kinds/objects.ts). */
const journalled = (kind: Made["kind"]): JournalledObject<unknown> => OBJECTS[kind];

export type Removal = "removed" | "gone" | "other" | "unproven";

/**
 * Removes a leftover if it is proven to be the object made: "other" when something else
 * has its name now, "unproven" when nothing tells (it is left alone).
 */
export async function removeLeftover(lv: Libvirt, l: Made, host: string): Promise<Removal> {
  try {
    const object = journalled(l.kind);
    const found = await object.find(lv, l);
    if (!found) return "unproven";
    if (!found.mine) return "other";
    await object.remove(lv, found.ref, host);
    return "removed";
  } catch (err) {
    if (gone(err)) return "gone";
    throw err;
  }
}

const describeMade = (l: Made) => `${l.kind} ${l.pool ? `${l.pool}/` : ""}${l.name}`;
const removal = (l: Made) => OBJECTS[l.kind].removal(l.name, l.pool);

/**
 * How long an undo keeps trying a host it cannot reach before it leaves the object to the
 * journal: longer than a libvirtd or sshd restart or a short outage takes.
 */
const UNDO_PATIENCE_MS = 20_000;

/**
 * Removes `leftover` now (retrying for `patienceMs` what may pass), or leaves it journalled for the next
 * operation on its host. `token` names its journal entry (written before it was made);
 * without one a new entry is written.
 */
export async function rollback(pool: HostAccess, leftover: Leftover, patienceMs = UNDO_PATIENCE_MS, token?: string): Promise<void> {
  const { host, ...made } = leftover;
  const until = Date.now() + patienceMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await pool.run(host, (lv) => removeLeftover(lv, made, pool.describe(host).label));
      if (result === "other" || result === "unproven") reportLeftAlone(pool.describe(host).label, made, result);
      if (token) await changeJournal((entries) => entries.filter((e) => e.token !== token));
      return;
    } catch (err) {
      // a refusal a retry cannot change (access denied, a host key that does not match) ends it at once
      const left = classify(err).errorClass === "permanent" ? 0 : until - Date.now();
      if (left <= 0) {
        // nobody is making it any more: the next operation on the host removes it
        const entry: Entry = { ...made, place: hostPlace(host), ...(token ? { token } : {}) };
        await changeJournal((entries) => [...entries.filter((e) => !token || e.token !== token), entry]);
        warn(
          `could not remove ${leftover.kind} ${leftover.name} on ${pool.describe(host).label} after a failed create (${(err as Error).message}); it is journalled in ${journalFile()} and removed by the next operation on that host`,
        );
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** (attempt - 1), 4_000, left)));
    }
  }
}

/** What one create makes on its host, journalled object by object before each is made. */
export class Making {
  private readonly made: { object: Made; token: string }[] = [];

  constructor(
    private readonly pool: HostAccess,
    private readonly host: HostConfig,
    /** How long `undo` keeps trying a host it cannot reach. */
    private readonly patienceMs = UNDO_PATIENCE_MS,
  ) {}

  /**
   * Makes one object with `call`, journalled first with its identity (`object.id`, chosen
   * before it exists): if this process stops before the create returns, the next operation
   * on the host removes it, if it proves to be this object. An error libvirt answered
   * means nothing was made; a broken link leaves it unknown, so it stays to be undone.
   * `proof`: an identity of what was made known only once it exists (a volume's mtime),
   * which proves it too until the one chosen before holds (a marker not written yet).
   */
  async make<T>(object: Made, call: () => Promise<T>, proof?: (made: T) => Promise<string | undefined>): Promise<T> {
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
    const entry = { object, token };
    this.made.push(entry);
    const id = await proof?.(made);
    if (id) await this.proven(entry, object.id ? `${object.id}|${id}` : id);
    return made;
  }

  /** What proves the object named `name` from now on, instead of what did (an Image's mtime once its upload ended). */
  async reidentify(name: string, id: string): Promise<void> {
    const entry = this.made.find((m) => m.object.name === name);
    if (entry) await this.proven(entry, id);
  }

  private async proven(entry: { object: Made; token: string }, id: string): Promise<void> {
    entry.object = { ...entry.object, id };
    await changeJournal((entries) => entries.map((e) => (e.token === entry.token ? { ...e, id } : e)));
  }

  /** The create returned, or left a VM the engine records: what it made is the stack's now. */
  async kept(): Promise<void> {
    const tokens = new Set(this.made.splice(0).map((m) => m.token));
    if (tokens.size) await changeJournal((entries) => entries.filter((e) => !e.token || !tokens.has(e.token)));
  }

  /** The create failed or was stopped: removes what it made, newest first, all within one patience. */
  async undo(): Promise<void> {
    const until = Date.now() + this.patienceMs;
    for (const { object, token } of this.made.splice(0).reverse())
      await rollback(this.pool, { ...object, host: this.host }, Math.max(0, until - Date.now()), token);
  }
}

/** The same journal line: its token, or all of it for a line without one. */
const sameEntry = (a: Entry, b: Entry) => (a.token || b.token ? a.token === b.token : JSON.stringify(a) === JSON.stringify(b));

/**
 * Removes journalled leftovers of this host (creates still in flight excepted); called
 * before creating or deleting anything on it. The journal is locked only to drop what was
 * settled, never across the calls to the host.
 */
export async function clearLeftovers(host: HostConfig, lv: Libvirt): Promise<void> {
  const place = hostPlace(host);
  const leftovers = journalEntries().filter((e) => e.place === place && !inFlight(e));
  const settled: Entry[] = [];
  for (const e of leftovers) {
    const result = await removeLeftover(lv, e, hostLabel(host)).catch(() => "failed" as const);
    if (result === "failed") continue;
    if (result === "other" || result === "unproven") reportLeftAlone(hostLabel(host), e, result);
    settled.push(e);
  }
  if (settled.length) await changeJournal((entries) => entries.filter((e) => !settled.some((s) => sameEntry(s, e))));
}

/** Reports a leftover that was not removed: someone else's object has its name, or nothing proves it is ours. */
function reportLeftAlone(host: string, l: Made, why: "other" | "unproven"): void {
  warn(
    why === "other"
      ? `${host}: the ${describeMade(l)} a failed create left was removed since; the ${l.kind} of that name now is someone else's and was left alone`
      : `${host}: a failed create may have left ${describeMade(l)}, but nothing proves that the ${l.kind} of that name is the one it made, so it was left alone. If it is yours, remove it: ${removal(l)}`,
  );
}

/**
 * Whether the object of this name on the host is a journalled leftover, proven to be the
 * one made: the next operation removes it, so its name counts as free.
 */
export async function isJournalled(lv: Libvirt, host: HostConfig, kind: Made["kind"], name: string, pool?: string): Promise<boolean> {
  const place = hostPlace(host);
  const entries = journalEntries().filter(
    (e) => e.place === place && !inFlight(e) && e.kind === kind && e.name === name && (kind !== "volume" || (e.pool ?? "default") === pool),
  );
  for (const e of entries) {
    const found = await journalled(kind)
      .find(lv, e)
      .catch((err) => (gone(err) ? undefined : Promise.reject(err)));
    if (found?.mine) return true;
  }
  return false;
}
