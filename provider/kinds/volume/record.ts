// How the stack health reads a recorded volume (a Volume's or an Image's): it is there or not.
import type { RecordReading } from "../../resources/kind";
import { present } from "../../resources/stack-record";

export const volumeRecord: RecordReading<{ pool?: string }> = {
  read: (o) => ({ pool: o.pool ?? "default" }),
  onHost: async (lv, r) => present(lv.lookupVolume(await lv.lookupPool(r.pool!), r.name)),
};
