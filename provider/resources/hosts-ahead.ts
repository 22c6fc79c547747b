// Hosts dialled ahead of their checks. Pulumi checks resources one at a time, so the first
// check on each host of a fleet would wait for that host's SSH and libvirt handshake in turn.
// The program notes each host it declares (the SDK, as a resource registers its host) in a
// file of this run of the engine; each check reads what is new there and dials those hosts at
// once, in the background: one login per host still, started early. The file is named by the
// engine's address, which Pulumi gives both the program (PULUMI_NODEJS_ENGINE) and the dynamic
// provider (its argument). It holds where each host is and how to log in by reference (key
// paths, never key material or a passphrase: a host carrying those is not noted and dials at
// its check), in the state directory (state-dir.ts), which only this user can write.
import * as fs from "fs";
import * as path from "path";
import type { HostPool } from "../pool/host-pool";
import type { HostConfig } from "../ssh/host";
import { isOwnFile, stateDir } from "../state-dir";
import { carriesSecret } from "./object-types";

/** A file older than this is some earlier run's that ended without removing it. */
const STALE_MS = 10 * 60_000;

const fileFor = (engine: string) => path.join(stateDir(), `hosts-${engine.replace(/[^0-9A-Za-z.-]/g, "_")}.jsonl`);

/** The program's side: notes `host` for the provider of this engine run (once per host; best effort). */
export const noteHost = (() => {
  const noted = new Set<string>();
  let file: string | undefined;
  return (host: HostConfig): void => {
    const engine = process.env.PULUMI_NODEJS_ENGINE;
    const line = JSON.stringify(host);
    if (!engine || carriesSecret("Host", host) || noted.has(line)) return;
    try {
      if (!file) {
        file = fileFor(engine);
        // this program's notes replace any an earlier run on the same engine port left
        fs.writeFileSync(file, "", { mode: 0o600 });
        const written = file;
        process.once("exit", () => fs.rmSync(written, { force: true }));
      }
      fs.appendFileSync(file, line + "\n");
      noted.add(line);
    } catch {
      // only an optimisation: each check dials its own host anyway
    }
  };
})();

/** The engine's address when this process is Pulumi's dynamic provider host, as it was started. */
function engineOfThisProvider(): string | undefined {
  const [, script, engine] = process.argv;
  return script?.includes("dynamic-provider") && engine && /^[\w.-]+:\d+$/.test(engine) ? engine : undefined;
}

/** The provider's side: dials, in the background, the hosts the program noted since the last call. */
export const dialAhead = (() => {
  /** Per engine run's file: how far it was read, and the hosts dialled from it. */
  const files = new Map<string, { read: number; dialled: Set<string> }>();
  return (pool: Pick<HostPool, "dialAhead">, engine = engineOfThisProvider()): void => {
    if (!engine) return;
    const file = fileFor(engine);
    const seen = files.get(file) ?? { read: 0, dialled: new Set<string>() };
    files.set(file, seen);
    let fresh: Buffer;
    try {
      const st = fs.statSync(file);
      if (!isOwnFile(st) || st.size <= seen.read || Date.now() - st.mtimeMs > STALE_MS) return;
      fresh = fs.readFileSync(file).subarray(seen.read);
    } catch {
      return;
    }
    // whole lines only: the program may be writing the next one
    const whole = fresh.subarray(0, fresh.lastIndexOf(10) + 1);
    seen.read += whole.length;
    for (const line of whole.toString("utf8").split("\n").filter(Boolean)) {
      if (seen.dialled.has(line)) continue;
      seen.dialled.add(line);
      try {
        pool.dialAhead(JSON.parse(line) as HostConfig);
      } catch {
        // a line this version cannot read: that host dials at its check
      }
    }
  };
})();
