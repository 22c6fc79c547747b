// Taking over an object that exists on the host before the stack (`adopt: true`):
// dynamic resources cannot `pulumi import`. Differences an update can apply are applied
// by the create that adopts; the others are reported, since only a replace could apply
// them and a replace would destroy what the user asked to keep.
import { KvmError } from "../errors";
import { deepEqual } from "./deep-equal";
import { isUnknown } from "./unknown";

/** One input the object on the host does not match. */
export interface Difference {
  property: string;
  onHost: unknown;
  inProgram: unknown;
}

/** The differences between what the host has and what the program asks, for the given properties. */
export function differences(onHost: Record<string, unknown>, inProgram: Record<string, unknown>, properties: string[]): Difference[] {
  return properties
    .filter((p) => inProgram[p] !== undefined && !isUnknown(inProgram[p]) && !deepEqual(onHost[p], inProgram[p]))
    .map((p) => ({ property: p, onHost: onHost[p], inProgram: inProgram[p] }));
}

/** The error of an adoption that only a replace could complete: nothing was changed on the host. */
export function refuseAdoption(host: string, what: string, diffs: Difference[]): KvmError {
  const list = diffs.map((d) => `${d.property} is ${JSON.stringify(d.onHost)} on the host but ${JSON.stringify(d.inProgram)} in the program`).join("; ");
  return new KvmError("permanent", `cannot adopt ${what}: ${list}`, {
    host,
    property: diffs[0].property,
    fix: "Only a replace could change that, and it would destroy the object you asked to keep. Make the program match the host (then change it in a later update where pulumi-kvm allows), or remove the object on the host and drop adopt; nothing was changed",
  });
}

/** The error of a create whose name is taken on the host, naming `adopt`. */
export function alreadyExists(host: string, what: string, removal: string): KvmError {
  return new KvmError("conflict", `${what} already exists and is not part of this stack`, {
    host,
    property: "name",
    fix: `Set adopt: true to take it over (its current state is read and your inputs applied), remove it on the host (${removal}), or choose another name`,
  });
}
