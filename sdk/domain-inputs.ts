// What the Domain class does beyond registering its inputs (its class is generated:
// codegen/typescript.ts): a Volume or Image given as a disk goes as its name, pool, format,
// base and identity as recorded; a resource given as a NIC's filter as its name (so
// Pulumi makes it first); cloud-init goes as a secret whenever any part is given.
import * as pulumi from "@pulumi/pulumi";
import { Image } from "./image";
import type { CloudInitArgs } from "./types";
import { Volume } from "./volume";

/** What of a disk this reads; the rest goes as the program wrote it. */
interface DiskSource {
  volume: Volume | Image | pulumi.Input<string>;
  pool?: pulumi.Input<string>;
  format?: pulumi.Input<"qcow2" | "raw">;
}

/** A resource of this package given where its object's name goes: the name output carries the dependency. */
type Named = pulumi.CustomResource & { readonly name: pulumi.Output<string> };

/** What of a NIC this reads. */
interface NicSource {
  filter?: Named | pulumi.Input<string>;
}

interface DomainSources {
  disks?: pulumi.Input<pulumi.Input<DiskSource>[]>;
  networkInterfaces?: pulumi.Input<pulumi.Input<NicSource>[]>;
  cloudInit?: pulumi.Input<CloudInitArgs>;
}

export function domainInputs(args: DomainSources): pulumi.Inputs {
  // a plain array keeps each disk's inputs apart, so a preview shows which one changed
  const disks = Array.isArray(args.disks)
    ? (args.disks as DiskSource[]).map(diskInput)
    : pulumi.output(args.disks).apply((list) => pulumi.all((list as unknown as DiskSource[]).map(diskInput)));
  const cloudInit =
    args.cloudInit === undefined
      ? undefined
      : pulumi.output(args.cloudInit).apply((c) => (c && Object.values(c).some((v) => v !== undefined) ? pulumi.secret(c) : c));
  const networkInterfaces = Array.isArray(args.networkInterfaces)
    ? (args.networkInterfaces as NicSource[]).map(nicInput)
    : args.networkInterfaces === undefined
      ? undefined
      : pulumi.output(args.networkInterfaces).apply((list) => (list as unknown as NicSource[]).map(nicInput));
  return { disks, cloudInit, networkInterfaces };
}

/** A disk as stored: a Volume or Image given as `volume` becomes its name, pool, format and base, as recorded. */
function diskInput(d: DiskSource) {
  const made = d.volume instanceof Volume || d.volume instanceof Image ? d.volume : undefined;
  // a Volume's identity goes along (an Image's mtime would not hold for one written as a disk)
  const recorded = d.volume instanceof Volume ? { backing: d.volume.diskBacking, identity: d.volume.identity } : {};
  return { ...d, ...recorded, volume: made ? made.name : d.volume, pool: d.pool ?? made?.pool, format: d.format ?? made?.format };
}

const nicInput = (n: NicSource) => (pulumi.CustomResource.isInstance(n.filter) ? { ...n, filter: n.filter.name } : n);
