// A Domain's cloud-init NoCloud seed: built as an ISO in memory, uploaded as a raw
// volume next to the first disk, and removed with the domain.
import * as crypto from "crypto";
import { KvmError } from "../../errors";
import { buildSeed } from "../../iso/seed";
import { Libvirt, VolumeRef } from "../../libvirt/api";
import { parseVolumeXml, volumeXml } from "../../xml/volume";
import { warn } from "../../log";
import { leftAlone } from "../../resources/recorded";
import { headMark, identify, mtimeId, newHeadToken, VolumeIdentity } from "../volume/identity";
import { DomainInputs, DomainOutputs, seedPoolFor } from "./inputs";
import { Making } from "../../resources/rollback";
import { findPool, findVolume } from "../../resources/storage";

export interface SeedVolume {
  pool: string;
  name: string;
  /** Its modification time once written (nothing writes it again: the guest sees a cdrom); absent in older records. */
  identity?: VolumeIdentity;
}

export const seedVolumeName = (domain: string) => `${domain}-seed.iso`;

/** The seed a domain's record names, in the pool recorded at create (older records: the first disk's). */
export const recordedSeed = (d: DomainOutputs): SeedVolume | undefined =>
  d.seedVolume ? { pool: d.seedPool ?? seedPoolFor(d), name: d.seedVolume, identity: d.seedIdentity } : undefined;

/**
 * The name of a seed that replaces another (edited cloud-init): random, never derived from
 * its content (a hash of the user-data would let anyone who sees the name guess its secrets).
 */
export const nextSeedName = (d: DomainInputs): string => `${d.name}-seed-${crypto.randomBytes(6).toString("hex")}.iso`;

/** Uploads the seed of `d`, made through the domain's `making` so a failed create removes it. */
export async function createSeed(
  lv: Libvirt,
  d: DomainInputs,
  host: string,
  making: Making,
  signal?: AbortSignal,
  name = seedVolumeName(d.name),
): Promise<SeedVolume & { path: string }> {
  // a new instance-id for every seed (cloud-init runs again), and the seed's identity in its
  // ISO system area (unused by ISO 9660; the guest sees a read-only cdrom): neither says anything of its content
  const token = newHeadToken();
  const s = buildSeed(d.cloudInit!, d.name, `i-${crypto.randomBytes(8).toString("hex")}`);
  headMark(token).copy(s.iso, 0);
  return writeSeed(lv, seedPoolFor(d), name, s.iso, token, host, making, signal);
}

/**
 * Copies the seed `seed` of host `from` to host `to` (a moving domain's) under the same name:
 * the same bytes, so the same instance-id, and cloud-init does not run again there.
 */
export async function copySeed(
  from: Libvirt,
  to: Libvirt,
  seed: SeedVolume,
  toPool: string,
  host: string,
  making: Making,
): Promise<SeedVolume & { path: string; fromPath: string }> {
  const source = await findVolume(from, await from.lookupPool(seed.pool), seed.name);
  if (!source) throw new KvmError("not-found", `seed volume "${seed.name}" is not in pool "${seed.pool}" any more`, { fix: "Run pulumi refresh" });
  const chunks: Buffer[] = [];
  for await (const chunk of from.downloadVolume(source)) chunks.push(chunk);
  const iso = Buffer.concat(chunks);
  const token = SEED_MARK.exec(iso.subarray(0, 64).toString("latin1"))?.[1];
  return { ...(await writeSeed(to, toPool, seed.name, iso, token, host, making)), fromPath: await from.volumePath(source) };
}

/** headMark's form at a seed's start (older seeds have none). */
const SEED_MARK = /^pulumi-kvm ([0-9a-f]{32})\n/;

/** Makes the seed volume `name` in `poolName` through `making` and writes `iso` into it; its identity is its mtime once written. */
async function writeSeed(
  lv: Libvirt,
  poolName: string,
  name: string,
  iso: Buffer,
  token: string | undefined,
  host: string,
  making: Making,
  signal?: AbortSignal,
): Promise<SeedVolume & { path: string }> {
  const pool = await lv.lookupPool(poolName);
  if (await findVolume(lv, pool, name)) {
    throw new KvmError("conflict", `seed volume "${name}" already exists in pool "${pool.name}"`, { host, fix: "Remove the stale seed volume on the host" });
  }
  // uploaded from memory: the user-data never touches this machine's disk
  const xml = volumeXml({ name, capacityBytes: iso.length, format: "raw" });
  // its identity before it exists: the mark its first bytes will hold; until they are written, its mtime when made
  const vol = await making.make(
    { kind: "volume", pool: pool.name, name, ...(token ? { id: `head:${token}` } : {}) },
    () => lv.createVolume(pool, xml),
    (v) => mtimeId(lv, v),
  );
  await lv.uploadVolume(
    vol,
    (async function* () {
      yield { data: iso };
    })(),
    { signal },
  );
  const { mtime } = parseVolumeXml(await lv.volumeXml(vol));
  return { pool: pool.name, name, path: await lv.volumePath(vol), ...(mtime ? { identity: { mtime } } : {}) };
}

/** The recorded seed's volume on the host: undefined when gone, "other" when a volume of its name is not the one made. */
async function seedOnHost(lv: Libvirt, seed: SeedVolume): Promise<VolumeRef | "other" | undefined> {
  const pool = await findPool(lv, seed.pool);
  const vol = pool && (await findVolume(lv, pool, seed.name));
  if (vol && seed.identity?.mtime && (await identify(lv, vol, { identity: seed.identity, format: "raw", capacityBytes: 0 })) === "other") return "other";
  return vol;
}

/**
 * Says that the seed of a domain gone from the host stays (a refresh drops the Domain and
 * changes nothing on the host), when the volume there is proven the one made.
 */
export async function warnSeedLeft(lv: Libvirt, domain: string, seed: SeedVolume | undefined, host: string): Promise<void> {
  if (!seed?.identity?.mtime) return;
  const vol = await seedOnHost(lv, seed);
  if (!vol || vol === "other") return;
  warn(
    `${host}: domain ${domain} is gone from the host; its cloud-init seed volume ${seed.pool}/${seed.name}, which pulumi-kvm made for it, stays: remove it with virsh vol-delete --pool ${seed.pool} ${seed.name}`,
  );
}

/** Removes a seed volume when it is the one recorded; gone already is fine, another one of its name is left alone. */
export async function deleteSeed(lv: Libvirt, seed: SeedVolume, host: string): Promise<void> {
  const vol = await seedOnHost(lv, seed);
  if (vol === "other") leftAlone(host, `seed volume ${seed.pool}/${seed.name}`, "delete");
  else if (vol) await lv.deleteVolume(vol);
}
