// A Domain's cloud-init NoCloud seed: built as an ISO in memory, uploaded as a raw
// volume next to the first disk, and removed with the domain.
import { KvmError } from "../errors";
import { buildSeed } from "../iso/seed";
import { Libvirt } from "../libvirt/api";
import { volumeXml } from "../xml/volume";
import { DomainInputs, seedPoolFor } from "./domain-inputs";
import { findPool, findVolume } from "./storage";

export interface SeedVolume {
  pool: string;
  name: string;
  /** The volume's key, once made (what a rollback checks before removing it). */
  key?: string;
}

export const seedVolumeName = (domain: string) => `${domain}-seed.iso`;

/**
 * Uploads the seed of `d` and returns its path. `made` is called as soon as the volume
 * exists, so a failed upload can be rolled back.
 */
export async function createSeed(lv: Libvirt, d: DomainInputs, host: string, made: (seed: SeedVolume) => void): Promise<string> {
  const s = buildSeed(d.cloudInit!, d.name);
  const name = seedVolumeName(d.name);
  const pool = await lv.lookupPool(seedPoolFor(d));
  if (await findVolume(lv, pool, name)) {
    throw new KvmError("conflict", `seed volume "${name}" already exists in pool "${pool.name}"`, { host, fix: "Remove the stale seed volume on the host" });
  }
  // uploaded from memory: the user-data never touches this machine's disk
  const vol = await lv.createVolume(pool, volumeXml({ name, capacityBytes: s.iso.length, format: "raw" }));
  made({ pool: pool.name, name, key: vol.key });
  await lv.uploadVolume(vol, (async function* () { yield { data: s.iso }; })());
  return lv.volumePath(vol);
}

/** Removes a seed volume; gone already is fine. */
export async function deleteSeed(lv: Libvirt, seed: SeedVolume): Promise<void> {
  const pool = await findPool(lv, seed.pool);
  const vol = pool && (await findVolume(lv, pool, seed.name));
  if (vol) await lv.deleteVolume(vol);
}
