// A Domain's cloud-init NoCloud seed: built as an ISO in memory, uploaded as a raw
// volume next to the first disk, and removed with the domain.
import { KvmError } from "../errors";
import { buildSeed } from "../iso/seed";
import { Libvirt } from "../libvirt/api";
import { volumeXml } from "../xml/volume";
import { DomainInputs, seedPoolFor } from "./domain-inputs";
import { Making } from "./rollback";
import { findPool, findVolume } from "./storage";

export interface SeedVolume {
  pool: string;
  name: string;
}

export const seedVolumeName = (domain: string) => `${domain}-seed.iso`;

/** Uploads the seed of `d`, made through the domain's `making` so a failed create removes it. */
export async function createSeed(lv: Libvirt, d: DomainInputs, host: string, making: Making, signal?: AbortSignal): Promise<SeedVolume & { path: string }> {
  const s = buildSeed(d.cloudInit!, d.name);
  const name = seedVolumeName(d.name);
  const pool = await lv.lookupPool(seedPoolFor(d));
  if (await findVolume(lv, pool, name)) {
    throw new KvmError("conflict", `seed volume "${name}" already exists in pool "${pool.name}"`, { host, fix: "Remove the stale seed volume on the host" });
  }
  // uploaded from memory: the user-data never touches this machine's disk
  const xml = volumeXml({ name, capacityBytes: s.iso.length, format: "raw" });
  const vol = await making.make({ kind: "volume", pool: pool.name, name }, () => lv.createVolume(pool, xml), (v) => v.key);
  await lv.uploadVolume(vol, (async function* () { yield { data: s.iso }; })(), { signal });
  return { pool: pool.name, name, path: await lv.volumePath(vol) };
}

/** Removes a seed volume; gone already is fine. */
export async function deleteSeed(lv: Libvirt, seed: SeedVolume): Promise<void> {
  const pool = await findPool(lv, seed.pool);
  const vol = pool && (await findVolume(lv, pool, seed.name));
  if (vol) await lv.deleteVolume(vol);
}
