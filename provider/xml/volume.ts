// Storage volume XML: built from typed inputs, parsed back for read/refresh.
import { create } from "xmlbuilder2";
import { at, parseXml } from "./dom";

export type VolumeFormat = "qcow2" | "raw";

export interface VolumeSpec {
  name: string;
  capacityBytes: number;
  format: VolumeFormat;
  /** Copy-on-write backing file (an Image's path) and its format. */
  backing?: { path: string; format: VolumeFormat };
  /** Bytes allocated up front: 0 makes a sparse file (libvirt allocates the whole capacity when absent). */
  allocationBytes?: number;
}

export function volumeXml(spec: VolumeSpec): string {
  const vol = create().ele("volume", { type: "file" });
  vol.ele("name").txt(spec.name);
  vol.ele("capacity", { unit: "bytes" }).txt(String(spec.capacityBytes));
  if (spec.allocationBytes !== undefined) vol.ele("allocation", { unit: "bytes" }).txt(String(spec.allocationBytes));
  vol.ele("target").ele("format", { type: spec.format });
  if (spec.backing) {
    const b = vol.ele("backingStore");
    b.ele("path").txt(spec.backing.path);
    b.ele("format", { type: spec.backing.format });
  }
  return vol.end({ headless: true });
}

export interface VolumeDescription {
  name: string;
  key?: string;
  path?: string;
  capacityBytes: number;
  format?: string;
  backingPath?: string;
  backingFormat?: string;
  /** The file's own size (a raw file's whole content, whatever its header claims). */
  physicalBytes?: number;
  /** The file's modification time, "seconds.nanoseconds". */
  mtime?: string;
}

export function parseVolumeXml(xml: string): VolumeDescription {
  const root = parseXml(xml);
  const capacity = Number(at(root, "capacity") ?? "0");
  const unit = at(root, "capacity@unit") ?? "bytes";
  if (unit !== "bytes") throw new Error(`volume XML reports capacity in ${unit}, expected bytes`);
  return {
    name: at(root, "name") ?? "",
    key: at(root, "key"),
    path: at(root, "target/path"),
    capacityBytes: capacity,
    format: at(root, "target/format@type"),
    backingPath: at(root, "backingStore/path"),
    backingFormat: at(root, "backingStore/format@type"),
    physicalBytes: at(root, "physical") === undefined ? undefined : Number(at(root, "physical")),
    mtime: at(root, "target/timestamps/mtime"),
  };
}
