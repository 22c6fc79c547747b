// Undoing what a failed create made. Runs on a fresh pooled call, so a link that died
// mid-operation is redialled first. When the host stays out of reach, the leftover is
// written to a journal on this machine and removed by the next operation on that host,
// so a failed create never leaves an object Pulumi does not know about.
//
// The journal holds what identifies a leftover and its host, never how to log in (the
// next operation brings its own credentials). It is readable by this user only, changed
// under a lock (creates run in parallel, in this process and in others), and an entry
// is removed on the host only when the object there is still the one journalled.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { warn } from "../log";
import { HostConfig } from "../ssh/host";
import { OWNER_NS } from "../xml/domain";
import { hostPlace } from "./common";
import { HostAccess } from "./context";
import { DomainState, isLibvirtError, Libvirt, UndefineFlags } from "../libvirt/api";

/** What a failed create made: a volume (by its key) or a domain (by its UUID, hex). */
export interface Made {
  kind: "volume" | "domain";
  pool?: string;
  name: string;
  /** A volume's key or a domain's UUID: an object of the same name made since is not ours to remove. */
  id?: string;
}

export interface Leftover extends Made {
  host: HostConfig;
}

/** A journal line: the leftover and where its host is (no credentials). */
interface Entry extends Made {
  place: string;
}

function journalFile(): string {
  return process.env.PULUMI_KVM_JOURNAL ?? path.join(os.homedir(), ".pulumi-kvm", "leftovers.json");
}

function readJournal(): Entry[] {
  try {
    return (JSON.parse(fs.readFileSync(journalFile(), "utf8")) as Entry[]).filter((e) => typeof e.place === "string");
  } catch {
    return [];
  }
}

function writeJournal(entries: Entry[]): void {
  const file = journalFile();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(entries, null, 2), { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** A lock file shared with other processes; a lock older than 60 s is stale (its owner died). */
async function lockJournal(): Promise<() => void> {
  const lock = `${journalFile()}.lock`;
  fs.mkdirSync(path.dirname(lock), { recursive: true, mode: 0o700 });
  for (let waited = 0; ; waited += 50) {
    try {
      fs.closeSync(fs.openSync(lock, "wx", 0o600));
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000 || waited > 120_000) fs.rmSync(lock, { force: true });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

let queue: Promise<unknown> = Promise.resolve();

/** Changes the journal under the lock, one change at a time in this process too. */
function changeJournal(change: (entries: Entry[]) => Promise<Entry[]> | Entry[]): Promise<void> {
  const run = queue.then(async () => {
    const unlock = await lockJournal();
    try {
      writeJournal(await change(readJournal()));
    } finally {
      unlock();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** The codes that mean the object (or the pool holding it) no longer exists. */
const gone = (err: unknown) => isLibvirtError(err, "NO_DOMAIN", "NO_STORAGE_VOL", "NO_STORAGE_POOL");

/** Removes a leftover if it is still the object made; "other" when something else now has its name. */
export async function removeLeftover(lv: Libvirt, l: Made): Promise<"removed" | "gone" | "other"> {
  try {
    if (l.kind === "volume") {
      const vol = await lv.lookupVolume(await lv.lookupPool(l.pool ?? "default"), l.name);
      if (l.id && vol.key !== l.id) return "other";
      await lv.deleteVolume(vol);
    } else {
      const dom = await lv.lookupDomain(l.name);
      if (l.id && dom.uuid.toString("hex") !== l.id) return "other";
      try {
        await lv.domainMetadata(dom, OWNER_NS);
      } catch (err) {
        if (isLibvirtError(err, "NO_DOMAIN_METADATA")) return "other";
        throw err;
      }
      if ((await lv.domainState(dom)).state !== DomainState.SHUTOFF) await lv.destroyDomain(dom).catch(() => undefined);
      await lv.undefineDomain(dom, UndefineFlags.NVRAM | UndefineFlags.MANAGED_SAVE | UndefineFlags.SNAPSHOTS_METADATA | UndefineFlags.CHECKPOINTS_METADATA);
    }
    return "removed";
  } catch (err) {
    if (gone(err)) return "gone";
    throw err;
  }
}

/** Removes `leftover` now, or journals it for the next operation on its host. */
export async function rollback(pool: HostAccess, leftover: Leftover, attempts = 3): Promise<void> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await pool.run(leftover.host, (lv) => removeLeftover(lv, leftover));
      return;
    } catch (err) {
      if (attempt === attempts) {
        const { host, ...made } = leftover;
        await changeJournal((entries) => [...entries, { ...made, place: hostPlace(host) }]);
        warn(`could not remove ${leftover.kind} ${leftover.name} on ${pool.describe(host).label} after a failed create (${(err as Error).message}); it is journalled in ${journalFile()} and removed by the next operation on that host`);
        return;
      }
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

/** Removes journalled leftovers of this host; called before creating anything on it. */
export async function clearLeftovers(host: HostConfig, lv: Libvirt): Promise<void> {
  const place = hostPlace(host);
  if (!readJournal().some((e) => e.place === place)) return;
  await changeJournal(async (entries) => {
    const kept: Entry[] = [];
    for (const e of entries) {
      if (e.place !== place) kept.push(e);
      else if ((await removeLeftover(lv, e).catch(() => "failed")) === "failed") kept.push(e);
    }
    return kept;
  });
}

/** Whether this object is a journalled leftover: the next operation removes it, so its name counts as free. */
export function isJournalled(host: HostConfig, kind: Made["kind"], name: string, pool?: string): boolean {
  const place = hostPlace(host);
  return readJournal().some((e) => e.place === place && e.kind === kind && e.name === name && (kind === "domain" || (e.pool ?? "default") === pool));
}
