// Storage pool XML: built from typed inputs, parsed back for read/refresh.
import { create } from "xmlbuilder2";
import { at, parseXml } from "./dom";

export type PoolType = "dir";

export interface PoolSpec {
  name: string;
  /** Chosen by the provider before the define, so the object's identity is known first. */
  uuid?: string;
  type: PoolType;
  /** The directory on the host that holds the pool's volumes. */
  path: string;
}

export function poolXml(spec: PoolSpec): string {
  const pool = create().ele("pool", { type: spec.type });
  pool.ele("name").txt(spec.name);
  if (spec.uuid) pool.ele("uuid").txt(spec.uuid);
  pool.ele("target").ele("path").txt(spec.path);
  return pool.end({ headless: true });
}

export interface PoolDescription {
  name: string;
  uuid: string;
  type: string;
  path: string;
}

export function parsePoolXml(xml: string): PoolDescription {
  const root = parseXml(xml);
  return { name: at(root, "name") ?? "", uuid: at(root, "uuid") ?? "", type: root.getAttribute("type") ?? "", path: at(root, "target/path") ?? "" };
}
