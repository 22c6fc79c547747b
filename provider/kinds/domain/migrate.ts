// A running domain moved live to another host: libvirt's migration protocol (version 3,
// with typed parameters) driven over the provider's connections to both hosts, the way
// libvirt's own client does it for `virsh migrate` without --p2p. No host needs SSH keys for
// the other: the memory (and the disks) go from the source's qemu to an address of the
// destination the source can reach. A phase that fails cancels those before it, so the
// domain goes on running on the source and the destination keeps nothing of it.
import { DomainRef, Libvirt, MigrateFlags, TypedParam, TypedParamType } from "../../libvirt/api";

export interface LiveMigration {
  /** An address of the destination that the source reaches, where its qemu listens for the streams. */
  address: string;
  /**
   * What the destination lacks of the disks: "all" copies each whole disk (libvirt makes the
   * destination's volume in its pool), "top" only the top layer onto volumes already made there
   * over the same base, "none" when both hosts see the same storage.
   */
  copy: "all" | "top" | "none";
  /** Left paused on the destination (a shut-off VM moved by a paused start: its CPUs never run). */
  paused?: boolean;
  /** Ctrl-C: the source's job is aborted, and the migration is cancelled like a failed one. */
  signal?: AbortSignal;
  /** Told every few seconds while the data goes: bytes of memory and disks sent, and left. */
  onProgress?: (p: MigrationProgress) => void;
  /** The definition the destination runs, from the source's (its disks' paths as the destination names them). */
  destinationXml?: (sourceXml: string) => string;
}

export interface MigrationProgress {
  total: number;
  processed: number;
  remaining: number;
}

/** How often a migration's progress is asked for. */
const PROGRESS_EVERY_MS = 2000;

const text = (field: string, value: string): TypedParam => ({ field, value: { type: TypedParamType.STRING, value } });
const NO_COOKIE = Buffer.alloc(0);

/** Moves `dom` from `source` to `destination`, running, defined there and no longer on the source; resolves with it as the destination names it. */
export async function migrateLive(source: Libvirt, destination: Libvirt, dom: DomainRef, how: LiveMigration): Promise<DomainRef> {
  const copy = { all: MigrateFlags.NON_SHARED_DISK, top: MigrateFlags.NON_SHARED_INC, none: 0 }[how.copy];
  const flags =
    MigrateFlags.LIVE |
    MigrateFlags.PERSIST_DEST |
    MigrateFlags.UNDEFINE_SOURCE |
    MigrateFlags.CHANGE_PROTECTION |
    copy |
    (how.paused ? MigrateFlags.PAUSED : 0);
  let params = [text("migrate_uri", `tcp://${how.address}`), text("destination_name", dom.name)];
  const begun = await source.migrateBegin(dom, params, flags);
  params = [...params, text("destination_xml", how.destinationXml ? how.destinationXml(begun.xml) : begun.xml)];
  let prepared: Awaited<ReturnType<Libvirt["migratePrepare"]>>;
  try {
    prepared = await destination.migratePrepare(params, begun.cookieOut, flags);
  } catch (err) {
    // the source holds the domain for the job Begin started: give it back
    await source.migrateConfirm(dom, params, NO_COOKIE, flags, true).catch(() => undefined);
    throw err;
  }
  // the destination says where it listens (the address with the port it chose)
  if (prepared.uriOut) params = [...params.filter((p) => p.field !== "migrate_uri"), text("migrate_uri", prepared.uriOut)];
  let performed: Buffer | undefined;
  let failure: unknown;
  const onProgress = how.onProgress;
  const watch = onProgress && setInterval(() => void source.migrationProgress(dom).then(onProgress, () => undefined), PROGRESS_EVERY_MS);
  const abort = () => void source.abortJob(dom).catch(() => undefined);
  how.signal?.addEventListener("abort", abort);
  try {
    how.signal?.throwIfAborted();
    performed = await source.migratePerform(dom, params, prepared.cookieOut, flags);
  } catch (err) {
    failure = how.signal?.aborted ? how.signal.reason : err;
  } finally {
    clearInterval(watch);
    how.signal?.removeEventListener("abort", abort);
  }
  let finished: Awaited<ReturnType<Libvirt["migrateFinish"]>> | undefined;
  try {
    // cancelled: the destination kills and forgets what Prepare made
    finished = await destination.migrateFinish(params, performed ?? NO_COOKIE, flags, failure !== undefined);
  } catch (err) {
    failure ??= err;
  }
  const cancelled = failure !== undefined || !finished;
  // cancelled: the domain resumes on the source; otherwise the source lets it go
  const confirmed = source.migrateConfirm(dom, params, finished?.cookieOut ?? NO_COOKIE, flags, cancelled);
  if (!finished || failure !== undefined) {
    // the error that stopped the migration is the one to tell, not the cancel's
    await confirmed.catch(() => undefined);
    throw failure;
  }
  await confirmed;
  return finished.dom;
}
