// The journal of leftovers on this machine: objects a create made, or was about to make,
// that no stack knows. It holds what identifies an object and where its host is, never
// how to log in (the next operation brings its own credentials). It is readable by this
// user only and changed under a lock (creates run in parallel, in this process and in
// others). An entry with the pid of a running process is that process's create in flight.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** An object on a host: a volume (by its key), a domain, pool or network (by its UUID, hex). */
export interface Made {
  kind: "volume" | "domain" | "pool" | "network";
  pool?: string;
  name: string;
  /** A volume's key, or the UUID of a domain, pool or network: an object of the same name made since is not ours to remove. */
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

export function journalFile(): string {
  return process.env.PULUMI_KVM_JOURNAL ?? path.join(os.homedir(), ".pulumi-kvm", "leftovers.json");
}

export function readJournal(): Entry[] {
  try {
    return (JSON.parse(fs.readFileSync(journalFile(), "utf8")) as Entry[]).filter((e) => typeof e.place === "string");
  } catch {
    return [];
  }
}

/** Whether an entry is a create still in flight (its process runs), so not a leftover yet. */
export function inFlight(e: Entry): boolean {
  if (!e.pid) return false;
  try {
    process.kill(e.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
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
export function changeJournal(change: (entries: Entry[]) => Promise<Entry[]> | Entry[]): Promise<void> {
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
