// Domain snapshot XML: built for a new snapshot, parsed back for its identity (the
// domain's UUID, the name and libvirt's creation time) and what it holds.
import { create } from "xmlbuilder2";
import { at, parseXml } from "./dom";

export interface SnapshotSpec {
  name: string;
  description?: string;
  /** Save the running VM's memory too (an internal full-system snapshot). */
  memory: boolean;
}

export function snapshotXml(spec: SnapshotSpec): string {
  const snap = create().ele("domainsnapshot");
  snap.ele("name").txt(spec.name);
  if (spec.description) snap.ele("description").txt(spec.description);
  snap.ele("memory", { snapshot: spec.memory ? "internal" : "no" });
  return snap.end({ headless: true });
}

export interface SnapshotDescription {
  name: string;
  description?: string;
  /** The domain's state when it was taken: "running", "shutoff", "disk-snapshot", … */
  state: string;
  /** Seconds since the epoch, set by libvirt: with the name, what tells this snapshot from a later one of that name. */
  creationTime: number;
  memory: boolean;
  domainUuid: string;
}

export function parseSnapshotXml(xml: string): SnapshotDescription {
  const root = parseXml(xml);
  return {
    name: at(root, "name") ?? "",
    description: at(root, "description"),
    state: at(root, "state") ?? "",
    creationTime: Number(at(root, "creationTime") ?? "0"),
    memory: (at(root, "memory@snapshot") ?? "no") !== "no",
    domainUuid: at(root, "domain/uuid") ?? "",
  };
}
