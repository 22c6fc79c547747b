// A few bytes written into a volume at an offset through libvirt's upload, which writes
// them as they are (no format is read from the file).
import { Libvirt, VolumeRef } from "../../libvirt/api";

export async function writeVolumeBytes(lv: Libvirt, vol: VolumeRef, offset: number, data: Buffer): Promise<void> {
  await lv.uploadVolume(
    vol,
    (async function* () {
      yield { data };
    })(),
    { offset: BigInt(offset), length: BigInt(data.length) },
  );
}
