import type { Libvirt } from "../../libvirt/api";
import type { KindModule } from "../../resources/kind";
import { parsePoolXml } from "../../xml/pool";
import { volumeDeclaration, VolumeInputs, VolumeOutputs } from "./declaration";
import { volumeProvider } from "./lifecycle";
import { volumeRecord } from "./record";

/** The volumes of the running directory pools (what a Volume can import), by the key import takes. */
async function volumesOnHost(lv: Libvirt): Promise<{ id: string; name: string; label: string }[]> {
  const out: { id: string; name: string; label: string }[] = [];
  for (const pool of await lv.listPools()) {
    if (parsePoolXml(await lv.poolXml(pool)).type !== "dir" || !(await lv.poolIsActive(pool))) continue;
    for (const vol of await lv.listVolumes(pool)) out.push({ id: vol.key, name: vol.name, label: `volume ${pool.name}/${vol.name}` });
  }
  return out;
}

export const volumeKind: KindModule<VolumeInputs, VolumeOutputs> = {
  declaration: volumeDeclaration,
  provider: volumeProvider,
  record: volumeRecord,
  discovery: {
    list: volumesOnHost,
    names: ["StoragePool", "Volume"],
    placeOf: (i) => i.pool,
    // its pool, and an overlay's base
    references: (i) => [{ kind: "StoragePool", name: i.pool ?? "default" }, ...(i.baseImage ? [{ kind: "Volume", name: i.baseImage, place: i.pool }] : [])],
  },
};
