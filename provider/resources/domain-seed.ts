// A Domain's cloud-init NoCloud seed: built as an ISO, staged through a temp file,
// uploaded as a raw volume next to the first disk, and removed with the domain.
import * as fs from "fs";
import * as path from "path";
import { KvmError } from "../errors";
import { stageTempDir } from "../image/source";
import { buildSeed } from "../iso/seed";
import { Libvirt } from "../libvirt/api";
import { volumeXml } from "../xml/volume";
import { DomainInputs, seedPoolFor } from "./domain-inputs";
import { findPool, findVolume } from "./storage";

export interface SeedVolume {
  pool: string;
  name: string;
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
  // staged through a temp file, as the ISO of a big user-data may be
  const staging = await stageTempDir("cloudInit", "the seed ISO");
  try {
    const file = path.join(staging.path, "seed.iso");
    try {
      fs.writeFileSync(file, s.iso);
    } catch (err) {
      throw new KvmError("permanent", `cannot write the seed ISO in ${staging.path}: ${(err as Error).message}`, { property: "cloudInit", fix: "Point TMPDIR at a writable directory with free space", cause: err });
    }
    const vol = await lv.createVolume(pool, volumeXml({ name, capacityBytes: s.iso.length, format: "raw" }));
    made({ pool: pool.name, name });
    await lv.uploadVolume(vol, (async function* () { yield { data: fs.readFileSync(file) }; })());
    return await lv.volumePath(vol);
  } finally {
    await staging.cleanup();
  }
}

/** Removes a seed volume; gone already is fine. */
export async function deleteSeed(lv: Libvirt, seed: SeedVolume): Promise<void> {
  const pool = await findPool(lv, seed.pool);
  const vol = pool && (await findVolume(lv, pool, seed.name));
  if (vol) await lv.deleteVolume(vol);
}
