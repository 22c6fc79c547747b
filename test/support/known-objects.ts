// What "the stack" knows in a fault test: the objects creates reported (or reported as
// partial). Anything else of this process's on the lab afterwards is an orphan.
import * as crypto from "crypto";
import * as fs from "fs";
import { LabEnv } from "./lab";
import { domainNames, mine, volumeNames } from "./virsh";

const MiB = 1024 * 1024;

export class Known {
  readonly volumes = new Set<string>();
  readonly domains = new Set<string>();
  constructor(
    private readonly lab: LabEnv,
    private readonly before = { volumes: mine(volumeNames(lab)), domains: mine(domainNames()) },
  ) {}
  /** This process's objects on the lab that were not there before and no create reported. */
  orphans(): string[] {
    return [
      ...mine(volumeNames(this.lab))
        .filter((v) => !this.before.volumes.includes(v) && !this.volumes.has(v))
        .map((v) => `volume ${v}`),
      ...mine(domainNames())
        .filter((d) => !this.before.domains.includes(d) && !this.domains.has(d))
        .map((d) => `domain ${d}`),
    ];
  }
}

/** A file of `mib` MiB of random bytes (nothing compresses or skips it). */
export function randomFile(file: string, mib: number): void {
  const fd = fs.openSync(file, "w");
  for (let i = 0; i < mib; i += 16) fs.writeSync(fd, crypto.randomBytes(16 * MiB));
  fs.closeSync(fd);
}
