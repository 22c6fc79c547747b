// A Domain whose host changes moves there in an update, not by a replacement: the same UUID,
// MACs, disks' contents and seed. A running VM moves live (libvirt's migration over the
// provider's connections to both hosts; the guest is not restarted), its disks copied onto the
// Volumes of the same names the stack made on the new host first; a shut-off one the same way,
// started paused (its CPUs never run) and shut off again there. A move that fails leaves the
// VM running where it was and nothing of it on the new host; the next `up` tries again.
import { classify, KvmError } from "../../errors";
import { describeState, DomainRef, Impact, Libvirt, StartFlags } from "../../libvirt/api";
import { OutcomeUnknown } from "../../pool/healing";
import { log, warn } from "../../log";
import { HostAccess } from "../../resources/context";
import { Failures } from "../../resources/input-checks";
import { hostLabel, sameMachine } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import { clearLeftovers, Making } from "../../resources/rollback";
import type { HostConfig } from "../../ssh/host";
import { interfacesWithLink, withDiskPaths } from "../../xml/domain-move";
import { seedPoolFor } from "./inputs";
import { migrateLive } from "./migrate";
import { domainByUuid, ownedDomain } from "./observe";
import { isActive } from "./power";
import { copySeed, deleteSeed, recordedSeed } from "./seed";
import { resolveDisks } from "./spec";
import type { DiskInput, DomainInputs, DomainOutputs, SeedRecord } from "./types";

/** Whether a change of host moves the domain: another machine, socket or URI (another user on the same one only logs in differently). */
export const movesHost = (olds: { host: HostConfig }, news: { host: HostConfig }): boolean => !sameMachine(olds.host, news.host);

const diskKey = (d: DiskInput) => `${d.pool ?? "default"}/${d.volume}`;

/** check (given the previous inputs): a move takes the disks as they are, the same volumes in order. */
export function checkMove(olds: DomainInputs, news: DomainInputs, failures: Failures): void {
  if (!movesHost(olds, news)) return;
  const to = hostLabel(news.host);
  const disks = news.disks;
  if (
    Array.isArray(disks) &&
    (disks.length !== olds.disks.length || disks.some((d, i) => !isUnknown(d) && !isUnknown(d.volume) && diskKey(d) !== diskKey(olds.disks[i])))
  ) {
    failures.push({
      property: "disks",
      reason: `domain ${news.name} moves to ${to} with the disks it has (${olds.disks.map(diskKey).join(", ")}): nothing was changed. Move it first (the same disks, made on ${to} too), then change its disks in a second update`,
    });
  }
}

/** Moves the domain of record `olds` to `news.host`; resolves with its seed as the new host has it. */
export async function moveDomain(pool: HostAccess, uuid: string, olds: DomainOutputs, news: DomainInputs, signal?: AbortSignal): Promise<SeedRecord> {
  const from = hostLabel(olds.host);
  const making = new Making(pool, news.host);
  let seed: SeedRecord;
  try {
    seed = await pool.run(olds.host, (a) => pool.run(news.host, (b) => moveBetween(a, b, uuid, olds, news, making, signal), { mutating: true }), {
      mutating: true,
    });
    await making.kept();
  } catch (err) {
    await making.undo();
    throw await moveFailure(pool, uuid, olds, news, err);
  }
  // the old host's seed: the moved VM reads the new host's copy
  const oldSeed = recordedSeed(olds);
  if (oldSeed) {
    await pool
      .run(olds.host, (a) => deleteSeed(a, oldSeed, from))
      .catch((err: Error) =>
        warn(`${from}: the seed volume ${olds.seedVolume} of domain ${olds.name}, moved away, was not removed (${err.message}); remove it by hand`),
      );
  }
  return seed;
}

async function moveBetween(
  a: Libvirt,
  b: Libvirt,
  uuid: string,
  olds: DomainOutputs,
  news: DomainInputs,
  making: Making,
  signal?: AbortSignal,
): Promise<SeedRecord> {
  const from = hostLabel(olds.host);
  const to = hostLabel(news.host);
  // what a move that failed there left (its seed copy, when that host's libvirtd died)
  await clearLeftovers(news.host, b);
  // moved by an earlier `up` whose record was not saved: it is ours there (its marker came along)
  const there = await recordedOn(b, uuid, olds, to);
  if (there) return olds.seedVolume ? { seedVolume: olds.seedVolume, seedPool: seedPoolFor(news), seedIdentity: undefined } : {};
  const dom = await recordedOn(a, uuid, olds, from);
  if (!dom) throw new KvmError("not-found", `domain ${olds.name} (${uuid}) is on neither host`, { host: from, fix: "Run pulumi refresh" });
  const paths = await diskPaths(a, b, olds, news, from, to);
  const copied = olds.seedVolume
    ? await copySeed(a, b, { pool: olds.seedPool ?? seedPoolFor(olds), name: olds.seedVolume }, seedPoolFor(news), to, making)
    : undefined;
  if (copied) paths.set(copied.fromPath, copied.path);
  // a shut-off VM moves the same way, started paused: its CPUs never run, on either host
  const running = await isActive(a, dom);
  if (!running) await a.startDomain(dom, StartFlags.PAUSED);
  log(`host=${to} domain ${olds.name}: moving ${running ? "live" : "shut off"} from ${from}`, 0);
  let moved: DomainRef;
  try {
    moved = await migrateLive(a, b, dom, {
      address: news.host.migrationAddress ?? news.host.address,
      // the Volumes made there hold the same base: only what the guest wrote goes
      copy: "top",
      paused: !running,
      signal,
      destinationXml: (xml) => withDiskPaths(xml, paths),
      onProgress: (p) =>
        log(
          // done as virsh migrate --verbose counts it: what is no longer left (zero pages go almost free)
          `host=${to} move domain ${olds.name} ${p.total ? Math.floor(((p.total - p.remaining) / p.total) * 100) : 0}% (${mib(p.remaining)} of ${mib(p.total)} MiB left, ${mib(p.processed)} MiB sent)`,
          0,
        ),
    });
  } catch (err) {
    if (!running) await a.destroyDomain(dom).catch(() => undefined);
    throw err;
  }
  if (running) await renewLeases(b, moved);
  else await b.destroyDomain(moved);
  return copied ? { seedVolume: copied.name, seedPool: copied.pool, seedIdentity: copied.identity } : {};
}

/** The domain of the record on a host, by its UUID: with pulumi-kvm's marker, unless it was imported. */
const recordedOn = (lv: Libvirt, uuid: string, olds: DomainOutputs, host: string) =>
  olds.imported ? domainByUuid(lv, uuid) : ownedDomain(lv, uuid, host, "move");

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** Each disk's file (and its base's) on the old host, by the file of the same disk on the new one. */
async function diskPaths(a: Libvirt, b: Libvirt, olds: DomainOutputs, news: DomainInputs, from: string, to: string): Promise<Map<string, string>> {
  const [was, now] = await Promise.all([resolveDisks(a, olds, from), resolveDisks(b, news, to)]);
  const paths = new Map<string, string>();
  was.forEach((disk, i) => {
    paths.set(disk.path, now[i].path);
    if (disk.backing && now[i].backing) paths.set(disk.backing.path, now[i].backing.path);
  });
  return paths;
}

/** How long a NIC's link stays down after a move: long enough for a guest that polls its carrier to see it drop. */
const LINK_DOWN_MS = 2000;

/**
 * The guest still holds the old host's address: each NIC's link goes down and up again, so a
 * guest whose network stack asks for a new lease when the carrier returns (systemd-networkd,
 * NetworkManager) takes one on the new host's network.
 */
async function renewLeases(lv: Libvirt, dom: DomainRef): Promise<void> {
  const xml = await lv.domainXml(dom, 0);
  for (const nic of interfacesWithLink(xml, "down")) await lv.updateDevice(dom, nic, Impact.LIVE);
  await new Promise((r) => setTimeout(r, LINK_DOWN_MS));
  for (const nic of interfacesWithLink(xml, "up")) await lv.updateDevice(dom, nic, Impact.LIVE);
}

/** The write whose outcome a broken link left unknown, when that is what failed (itself or as a cause). */
function outcomeUnknown(err: unknown): OutcomeUnknown | undefined {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof OutcomeUnknown) return e;
  return undefined;
}

/** A failed move's error: what stopped it, and where the VM is now (a failed migration leaves it on the old host). */
async function moveFailure(pool: HostAccess, uuid: string, olds: DomainOutputs, news: DomainInputs, err: unknown): Promise<KvmError> {
  const from = hostLabel(olds.host);
  const to = hostLabel(news.host);
  const cause = classify(err);
  const state = await pool
    .run(olds.host, async (a) => {
      const dom = await recordedOn(a, uuid, olds, from);
      return dom && describeState(await a.domainState(dom));
    })
    .catch(() => undefined);
  const where = state ? `; the VM is still on ${from} (${state}), and nothing of it was kept on ${to}` : "";
  // a write the broken link left in doubt needs no look on the host once the VM is found
  const unknown = outcomeUnknown(err);
  const said = state && unknown ? unknown.happened : cause.message;
  return new KvmError(cause.errorClass, `moving domain ${olds.name} from ${from} to ${to} failed: ${said}${where}`, {
    host: to,
    codeName: cause.codeName,
    cause: err,
    fix: state
      ? `Run pulumi up again to retry the move (${from} must reach ${to} at its migrationAddress)`
      : "Run pulumi refresh to see where the VM is, then pulumi up",
  });
}
