// Storage helpers shared by Image and Volume: finding volumes, who uses them, and
// their description as resource outputs.
import { LibvirtError } from "../rpc/errors";
import { Libvirt, PoolRef, VolumeRef } from "../libvirt/api";
import { parseVolumeXml, VolumeDescription } from "../xml/volume";
import { at, children, node, parseXml } from "../xml/dom";

export async function findVolume(lv: Libvirt, pool: PoolRef, name: string): Promise<VolumeRef | undefined> {
  try {
    return await lv.lookupVolume(pool, name);
  } catch (err) {
    if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_STORAGE_VOL") return undefined;
    throw err;
  }
}

export async function findPool(lv: Libvirt, name: string): Promise<PoolRef | undefined> {
  try {
    return await lv.lookupPool(name);
  } catch (err) {
    if (err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_STORAGE_POOL") return undefined;
    throw err;
  }
}

export async function describeVolume(lv: Libvirt, vol: VolumeRef): Promise<VolumeDescription & { path: string }> {
  const [xml, path] = await Promise.all([lv.volumeXml(vol), lv.volumePath(vol)]);
  return { ...parseVolumeXml(xml), path };
}

/** Names of the pool's volumes whose backing file is `path`. */
export async function volumesBackedBy(lv: Libvirt, pool: PoolRef, path: string): Promise<string[]> {
  const vols = await lv.listVolumes(pool);
  const out: string[] = [];
  for (const v of vols) {
    try {
      if (parseVolumeXml(await lv.volumeXml(v)).backingPath === path) out.push(v.name);
    } catch (err) {
      if (!(err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_STORAGE_VOL")) throw err; // deleted meanwhile
    }
  }
  return out;
}

/** Names of the host's domains with a disk whose source is `path`. */
export async function domainsUsing(lv: Libvirt, path: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await lv.listDomains()) {
    try {
      const devices = node(parseXml(await lv.domainXml(d, 0)), "devices");
      if (children(devices, "disk").some((disk) => at(disk, "source@file") === path)) out.push(d.name);
    } catch (err) {
      if (!(err instanceof LibvirtError && err.codeName === "VIR_ERR_NO_DOMAIN")) throw err;
    }
  }
  return out;
}
