// Undoing what a failed create made. Runs on a fresh pooled call, so a link that died
// mid-operation is redialled first. When the host stays out of reach, the leftover is
// written to a journal on this machine and removed by the next operation on that host,
// so a failed create never leaves an object Pulumi does not know about.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { warn } from "../log";
import { HostConfig } from "../ssh/host";
import { hostPlace } from "./common";
import { HostAccess } from "./context";
import { DomainState, isLibvirtError, Libvirt, UndefineFlags } from "../libvirt/api";

export interface Leftover {
  host: HostConfig;
  kind: "volume" | "domain";
  pool?: string;
  name: string;
}

function journalFile(): string {
  return process.env.PULUMI_KVM_JOURNAL ?? path.join(os.homedir(), ".pulumi-kvm", "leftovers.json");
}

function readJournal(): Leftover[] {
  try {
    return JSON.parse(fs.readFileSync(journalFile(), "utf8"));
  } catch {
    return [];
  }
}

function writeJournal(entries: Leftover[]): void {
  fs.mkdirSync(path.dirname(journalFile()), { recursive: true, mode: 0o700 });
  // host entries may hold key material: readable by this user only
  fs.writeFileSync(journalFile(), JSON.stringify(entries, null, 2), { mode: 0o600 });
}

/** Leftovers belong to a host by where it is, not by how one logs in (a rotated key still clears them). */
const identity = (h: HostConfig) => hostPlace(h);
/** The codes that mean the object (or the pool holding it) no longer exists. */
const gone = (err: unknown) => isLibvirtError(err, "NO_DOMAIN", "NO_STORAGE_VOL", "NO_STORAGE_POOL");

export async function removeLeftover(lv: Libvirt, l: Leftover): Promise<void> {
  try {
    if (l.kind === "volume") {
      await lv.deleteVolume(await lv.lookupVolume(await lv.lookupPool(l.pool ?? "default"), l.name));
    } else {
      const dom = await lv.lookupDomain(l.name);
      if ((await lv.domainState(dom)).state !== DomainState.SHUTOFF) await lv.destroyDomain(dom).catch(() => undefined);
      await lv.undefineDomain(dom, UndefineFlags.NVRAM | UndefineFlags.MANAGED_SAVE | UndefineFlags.SNAPSHOTS_METADATA | UndefineFlags.CHECKPOINTS_METADATA);
    }
  } catch (err) {
    if (!gone(err)) throw err;
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
        writeJournal([...readJournal(), leftover]);
        warn(`could not remove ${leftover.kind} ${leftover.name} on ${pool.describe(leftover.host).label} after a failed create (${(err as Error).message}); it is journalled in ${journalFile()} and removed by the next operation on that host`);
        return;
      }
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

/** Removes journalled leftovers of this host; called before creating anything on it. */
export async function clearLeftovers(host: HostConfig, lv: Libvirt): Promise<void> {
  const all = readJournal();
  const mine = all.filter((l) => identity(l.host) === identity(host));
  if (!mine.length) return;
  const kept = all.filter((l) => identity(l.host) !== identity(host));
  for (const l of mine) {
    try {
      await removeLeftover(lv, l);
    } catch {
      kept.push(l);
    }
  }
  writeJournal(kept);
}

/** Whether this object is a journalled leftover: the next operation removes it, so its name counts as free. */
export function isJournalled(host: HostConfig, kind: Leftover["kind"], name: string, pool?: string): boolean {
  return readJournal().some((l) => identity(l.host) === identity(host) && l.kind === kind && l.name === name && (kind === "domain" || (l.pool ?? "default") === pool));
}
