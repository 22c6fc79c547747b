import * as pulumi from "@pulumi/pulumi";
import { Domain } from "./domain";
import { HostArgs } from "./host";
import { providerShim } from "./shim";
import { MODULE, registered } from "./resource-type";

export interface SnapshotArgs {
  /** The libvirt host and how to log in (docs/connection.md). Another address, port, user, socket or URI replaces the resource; a login change is only recorded. */
  host: pulumi.Input<HostArgs>;
  /**
   * The domain to snapshot: pass the Domain itself (its name and UUID go along, and Pulumi
   * deletes the snapshot before the domain). A name alone needs `domainUuid`. A change replaces.
   */
  domain: Domain | pulumi.Input<string>;
  /** The domain's UUID (a Domain's `uuid` output), when `domain` is a name: only that domain is snapshotted. A change replaces. */
  domainUuid?: pulumi.Input<string>;
  /** Snapshot name (default: the resource name). A change replaces. */
  name?: pulumi.Input<string>;
  /** A description libvirt keeps with the snapshot; a change is only recorded. */
  description?: pulumi.Input<string>;
  /** Also save a running VM's memory (default false), so a revert resumes it where it was. A change replaces. */
  memory?: pulumi.Input<boolean>;
}

/**
 * A snapshot of a domain's disks (and its memory with `memory: true`), taken when the
 * resource is created, removed when it is deleted. Revert with `pulumi-kvm snapshot revert`.
 */
export class Snapshot extends pulumi.dynamic.Resource {
  public readonly name!: pulumi.Output<string>;
  public readonly domain!: pulumi.Output<string>;
  /** The UUID of the domain it belongs to. */
  public readonly domainUuid!: pulumi.Output<string>;
  /** When libvirt took it, in seconds since the epoch. */
  public readonly creationTime!: pulumi.Output<number>;
  /** The domain's state when it was taken: "running" (memory saved) or "shutoff". */
  public readonly state!: pulumi.Output<string>;
  public readonly host!: pulumi.Output<HostArgs>;

  constructor(name: string, args: SnapshotArgs, opts?: pulumi.CustomResourceOptions) {
    const domain = args.domain instanceof Domain ? args.domain : undefined;
    super(
      providerShim,
      name,
      registered("Snapshot", name, args, ["domainUuid", "creationTime", "state"], {
        domain: domain ? domain.name : (args.domain as pulumi.Input<string>),
        domainUuid: args.domainUuid ?? domain?.uuid,
      }),
      opts,
      MODULE,
      "Snapshot",
    );
  }
}
