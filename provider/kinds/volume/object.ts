// A volume on its host (a Volume's or an Image's): gone, removed by hand, found and proven
// by the identity journalled with it (identity.ts), removed.
import type { VolumeRef } from "../../libvirt/api";
import type { JournalledObject } from "../../resources/object-kind";
import { judge } from "./identity";

export const volumeObject: JournalledObject<VolumeRef> = {
  gone: ["NO_STORAGE_VOL", "NO_STORAGE_POOL"],
  removal: (name, pool = "default") => `virsh vol-delete --pool ${pool} ${name}`,
  async find(lv, made) {
    const ref = await lv.lookupVolume(await lv.lookupPool(made.pool ?? "default"), made.name);
    const verdict = made.id ? await judge(lv, ref, made.id) : "unknown";
    return verdict === "unknown" ? undefined : { ref, mine: verdict === "mine" };
  },
  remove: (lv, vol) => lv.deleteVolume(vol),
};
