// The hosts the last `health --stack` of a stack checked, remembered on this machine: the
// next one dials them while `pulumi stack export` runs, so a fleet's handshakes overlap the
// export instead of following it. A host the stack no longer has is dialled once for nothing;
// one whose login carries key material or a passphrase is not remembered (it dials after the
// export, as every host of a stack's first check does). The file is this user's, in the state
// directory (state-dir.ts), named by the project directory and the stack.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { carriesSecret } from "../provider/resources/object-types";
import type { HostConfig } from "../provider/ssh/host";
import { isOwnFile, stateDir } from "../provider/state-dir";

const fileFor = (cwd: string, stack: string) =>
  path.join(
    stateDir(),
    `stack-hosts-${crypto
      .createHash("sha256")
      .update(`${path.resolve(cwd)}\0${stack}`)
      .digest("hex")
      .slice(0, 32)}.json`,
  );

/** The hosts the last check of this stack found; none when there was none, or its file is not this user's. */
export function rememberedHosts(cwd: string, stack: string): HostConfig[] {
  try {
    const file = fileFor(cwd, stack);
    if (!isOwnFile(fs.statSync(file))) return [];
    const hosts: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    return Array.isArray(hosts) ? (hosts as HostConfig[]) : [];
  } catch {
    return [];
  }
}

/** Remembers the hosts this check of the stack found (best effort: only the next check's head start). */
export function rememberHosts(cwd: string, stack: string, hosts: HostConfig[]): void {
  try {
    const file = fileFor(cwd, stack);
    const kept = hosts.filter((h) => !carriesSecret("Host", h));
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(kept), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
  } catch {
    // the next check dials after its export, as without this file
  }
}
