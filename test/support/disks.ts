// What the SDK passes for a Volume or Image given as a disk, for tests that call the
// provider directly: its name, pool, recorded format and recorded base.
import { DiskInput } from "../../provider/kinds/domain/inputs";

export function diskOf(v: { name: string; pool: string; format: "qcow2" | "raw"; backing?: DiskInput["backing"] }): DiskInput {
  return { volume: v.name, pool: v.pool, format: v.format, ...(v.backing ? { backing: v.backing } : {}) };
}
