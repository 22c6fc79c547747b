// What pulumi-kvm keeps on this machine between runs (the journal of leftovers, the digests
// of local image files, the hosts a running program declared) lives in one directory that
// only this user can write: anyone else could plant a file there, or swap one for a link
// while it is written.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/**
 * The journal of leftovers; its directory is the state directory (PULUMI_KVM_JOURNAL moves both).
 * Not leftovers.json: versions before 0.6.1 remove every entry of that file for a host before
 * they create on it, another process's create in flight included.
 */
export function journalFile(): string {
  return process.env.PULUMI_KVM_JOURNAL ?? path.join(os.homedir(), ".pulumi-kvm", "journal.json");
}

/** Where versions before 0.6.1 journal, beside the journal (none when that is the journal itself): their leftovers are still removed. */
export function earlierJournalFile(): string | undefined {
  const earlier = path.join(path.dirname(journalFile()), "leftovers.json");
  return earlier === journalFile() ? undefined : earlier;
}

/** The state directory, made when missing; refused when others can write to it. */
export function stateDir(): string {
  const dir = path.dirname(journalFile());
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if (st.mode & 0o022 || (typeof process.getuid === "function" && st.uid !== process.getuid() && st.uid !== 0)) {
    throw new Error(
      `the pulumi-kvm journal's directory ${dir} can be written by other users (mode ${(st.mode & 0o777).toString(8)}); run chmod go-w ${dir}, or set PULUMI_KVM_JOURNAL to a file in a directory only you can write (default ~/.pulumi-kvm/journal.json)`,
    );
  }
  return dir;
}

/** Whether `st` is a file of this user's: what another user made is not trusted. */
export const isOwnFile = (st: fs.Stats): boolean => st.isFile() && (typeof process.getuid !== "function" || st.uid === process.getuid());
