// The journal of leftovers on this machine: objects a create made, or was about to make,
// that no stack knows. It holds what identifies an object and where its host is, never
// how to log in (the next operation brings its own credentials). It is readable by this
// user only and changed under a lock (creates run in parallel, in this process and in
// others). An entry with the pid of a running process is that process's create in flight.
import * as crypto from "crypto";
import * as fs from "fs";
import { warn } from "../log";
import { earlierJournalFile, isOwnFile, journalFile, stateDir } from "../state-dir";
import type { JournalledKind } from "../kinds/objects";

/** An object on a host: a volume (by what proves it, volume-identity.ts), a domain, pool or network (by its UUID, hex). */
export interface Made {
  kind: JournalledKind;
  pool?: string;
  name: string;
  /** What proves a volume, or the UUID of a domain, pool or network: an object of the same name made since is not ours to remove. */
  id?: string;
}

/** A journal line: the object and where its host is (no credentials). */
export interface Entry extends Made {
  place: string;
  /** The process whose create is making it; absent once nobody is. */
  pid?: number;
  /** Tells one create's entry from another's of the same name. */
  token?: string;
}

/** The entries, when the file is a regular file of this user's; anything else is not trusted. */
export function readJournal(file = journalFile()): Entry[] {
  let text: string;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const st = fs.fstatSync(fd);
      if (!isOwnFile(st)) {
        warn(`ignoring the journal ${file}: it is not a file of this user's (someone else may have planted it)`);
        return [];
      }
      text = fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") warn(`ignoring the journal ${file}: it is a symbolic link`);
    return [];
  }
  try {
    const entries = JSON.parse(text) as unknown;
    return Array.isArray(entries) ? entries.filter((e): e is Entry => !!e && typeof e.place === "string" && typeof e.name === "string") : [];
  } catch {
    return [];
  }
}

/** The journal's entries, and the leftovers an earlier version journalled beside it (changeJournal moves them in). */
export function journalEntries(): Entry[] {
  const earlier = earlierJournalFile();
  return [...readJournal(), ...(earlier ? readJournal(earlier).filter((e) => !inFlight(e)) : [])];
}

/** Whether process `pid` runs (on this machine). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether an entry is a create still in flight (its process runs), so not a leftover yet. */
export const inFlight = (e: Entry): boolean => !!e.pid && processRuns(e.pid);

/** Written to a new temp file of an unguessable name (never through a link someone placed), then renamed over the journal. */
function writeJournal(entries: Entry[], file = journalFile()): void {
  stateDir();
  const tmp = `${file}.${crypto.randomBytes(8).toString("hex")}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeFileSync(fd, JSON.stringify(entries, null, 2));
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** How long a change waits for a lock whose holder lives before it gives up (a change takes milliseconds). */
const LOCK_PATIENCE_MS = 30_000;

/** The pid a lock file names, or undefined when it names none. */
function lockHolder(lock: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(lock, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A lock file shared with other processes, naming its holder's pid. It is held only while
 * the journal is read and rewritten (never across a call to a host), and broken only when
 * its holder is gone: the file appears with its pid in it (linked from a file written
 * first), so a lock naming no live process is stale.
 */
async function lockJournal(file = journalFile()): Promise<() => void> {
  const lock = `${file}.lock`;
  stateDir();
  const mine = `${lock}.${crypto.randomBytes(8).toString("hex")}`;
  fs.writeFileSync(mine, String(process.pid), { mode: 0o600, flag: "wx" });
  try {
    for (const started = Date.now(); !linked(mine, lock);) {
      const holder = lockHolder(lock);
      if (holder === undefined || !processRuns(holder)) {
        // its holder died holding it; only a lock still naming that dead holder is removed
        if (lockHolder(lock) === holder) fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() - started > LOCK_PATIENCE_MS) {
        throw new Error(
          `the pulumi-kvm journal ${file} has been locked for over ${LOCK_PATIENCE_MS / 1000} s by process ${holder}, which still runs; if it hangs, stop it, then try again`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return () => fs.rmSync(lock, { force: true });
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

/** Whether `file` could be linked as `lock` (false: a lock exists). */
function linked(file: string, lock: string): boolean {
  try {
    fs.linkSync(file, lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Changes the journal under the lock, one change at a time in this process too. The leftovers an
 * earlier version journalled (entries no process makes) move into the journal first; what is in
 * flight there stays, for its own process to forget.
 */
export function changeJournal(change: (entries: Entry[]) => Promise<Entry[]> | Entry[]): Promise<void> {
  const run = queue.then(async () => {
    const unlock = await lockJournal();
    try {
      const earlier = earlierJournalFile();
      if (!earlier || !fs.existsSync(earlier)) return writeJournal(await change(readJournal()));
      const unlockEarlier = await lockJournal(earlier);
      try {
        const theirs = readJournal(earlier);
        const leftovers = theirs.filter((e) => !inFlight(e));
        // written here before it goes from there: a crash in between repeats an entry, never loses one
        writeJournal(await change([...readJournal(), ...leftovers]));
        const still = theirs.filter(inFlight);
        if (still.length) writeJournal(still, earlier);
        else fs.rmSync(earlier, { force: true });
      } finally {
        unlockEarlier();
      }
    } finally {
      unlock();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}
