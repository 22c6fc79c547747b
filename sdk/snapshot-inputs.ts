// What the Snapshot class does beyond registering its inputs (its class is generated:
// codegen/typescript.ts): a Domain given as `domain` goes as its name and UUID, so only
// that domain is snapshotted and Pulumi deletes the snapshot before it.
import * as pulumi from "@pulumi/pulumi";
import { Domain } from "./domain";

export function snapshotInputs(args: { domain: Domain | pulumi.Input<string>; domainUuid?: pulumi.Input<string> }): pulumi.Inputs {
  const domain = args.domain instanceof Domain ? args.domain : undefined;
  return { domain: domain ? domain.name : args.domain, domainUuid: args.domainUuid ?? domain?.uuid };
}
