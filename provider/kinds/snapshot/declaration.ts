// The Snapshot's properties, declared once (properties.ts): a snapshot is a moment, so
// everything that says which moment replaces it; its description is only recorded
// (libvirt keeps the one it was taken with).
import type { HostConfig } from "../../ssh/host";
import { Declaration, hostProperty, nameProperty, resourceNameProperty } from "../../resources/properties";

export interface SnapshotInputs {
  host: HostConfig;
  /** The domain's name. */
  domain: string;
  /** The domain's UUID as the stack recorded it (dashed). */
  domainUuid?: string;
  name: string;
  resourceName?: string;
  description?: string;
  memory?: boolean;
}

export interface SnapshotOutputs extends SnapshotInputs {
  kvmKind: "Snapshot";
  domainUuid: string;
  /** Seconds since the epoch, as libvirt recorded it. */
  creationTime: number;
  /** The domain's state when it was taken ("running", "shutoff"). */
  state: string;
}

export const snapshotDeclaration: Declaration<SnapshotInputs, SnapshotOutputs> = {
  kind: "Snapshot",
  doc: "A snapshot of a domain's disks (and its memory with `memory: true`), taken when the resource is created, removed when it is deleted; revert with `pulumi-kvm snapshot revert`",
  namedBy: ["domain", "name"],
  outputs: {
    creationTime: { type: "number", doc: "when libvirt took it, in seconds since the epoch" },
    state: { type: "string", doc: 'the domain\'s state when it was taken: `"running"` (with memory) or `"shutoff"`' },
  },
  properties: {
    host: hostProperty(),
    domain: {
      type: "Domain | string",
      doc: "the domain to snapshot: a Domain (TypeScript: its name and UUID go along), or its name (pass a Domain's `name` output, so Pulumi deletes the snapshot first)",
      required: true,
      change: "replace",
    },
    domainUuid: {
      type: "string",
      doc: "the UUID of that domain (a Domain's `uuid` output): the snapshot is taken of the domain the stack made, never of another one someone made under its name. **Required for a new snapshot**; the TypeScript SDK passes it when `domain` is a Domain",
      defaultDoc: "the Domain's, when `domain` is one (TypeScript)",
      filled: true,
      // a record made before it was an input holds libvirt's: compared only when the program gives it
      onlyWhenGiven: true,
      change: "replace",
    },
    name: nameProperty("the snapshot's name on the domain"),
    resourceName: resourceNameProperty(),
    description: { type: "string", doc: "a description libvirt keeps with the snapshot", change: "record" },
    memory: {
      type: "boolean",
      doc: "also save a running VM's memory, so a revert resumes it where it was (a shut-off VM has none to save)",
      default: false,
      change: "replace",
    },
  },
};
