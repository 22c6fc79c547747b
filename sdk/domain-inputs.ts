// What the Domain class does beyond registering its inputs (its class is generated:
// codegen/typescript.ts): a Volume or Image given as a disk goes as its name, pool, format,
// base and identity as recorded; cloud-init goes as a secret whenever any part is given.
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

interface DomainSources {
  disks?: pulumi.Input<pulumi.Input<DiskSource>[]>;
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
  return { disks, cloudInit };
}

/** A disk as stored: a Volume or Image given as `volume` becomes its name, pool, format and base, as recorded. */
function diskInput(d: DiskSource) {
  const made = d.volume instanceof Volume || d.volume instanceof Image ? d.volume : undefined;
  // a Volume's identity goes along (an Image's mtime would not hold for one written as a disk)
  const recorded = d.volume instanceof Volume ? { backing: d.volume.diskBacking, identity: d.volume.identity } : {};
  return { ...d, ...recorded, volume: made ? made.name : d.volume, pool: d.pool ?? made?.pool, format: d.format ?? made?.format };
}
