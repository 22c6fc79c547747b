// The lab's domains, networks, network filters, pools and volumes (and hypervisor B's), listed
// before the first test and after the last: the run fails naming anything it left. A test that
// leaks is a failing test, not a silent after-hook. npm test (suite.ts) takes the lists around
// its phases; a run of some files (mocha --require dist/test/support/leaks.js) has them as a
// root hook.
import * as fs from "fs";
import * as path from "path";
import { readEnvFile, repoRoot } from "./lab";
import { filterNames, networkNames, virsh } from "./virsh";

/** The domains, and the volumes of every running pool, on the libvirtd at `uri`, each line prefixed by `host`. */
function objectsOn(uri: string, host: string, out: Set<string>): void {
  const list = (args: string[]) =>
    virsh(args, uri)
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0])
      .filter(Boolean);
  for (const d of list(["list", "--all", "--name"])) out.add(`${host}domain ${d}`);
  for (const p of list(["pool-list", "--all", "--name"])) {
    out.add(`${host}pool ${p}`);
    if (!/^\s*State:\s+running/m.test(virsh(["pool-info", p], uri))) continue;
    virsh(["pool-refresh", p], uri);
    for (const v of list(["vol-list", p])) out.add(`${host}volume ${p}/${v}`);
  }
}

/** Every object on the lab (hypervisor B's too), as "kind name" lines; undefined when the lab is not up. */
export function inventory(): Set<string> | undefined {
  const envFile = path.join(repoRoot, ".lab", "env");
  if (!fs.existsSync(envFile)) {
    if (process.env.KVM_LAB_REQUIRED === "1") throw new Error("the lab is required (KVM_LAB_REQUIRED=1) and not up: run scripts/lab up");
    return undefined;
  }
  const out = new Set<string>();
  objectsOn("qemu:///system", "", out);
  for (const n of networkNames()) out.add(`network ${n}`);
  for (const f of filterNames()) out.add(`network filter ${f}`);
  const uriB = readEnvFile(envFile).KVM_LAB_URI_B;
  if (uriB) objectsOn(uriB, "B: ", out);
  return out;
}

/** What is on the lab now and was not in `before`, sorted. */
export function leftBehind(before: Set<string>): string[] {
  const after = inventory();
  return after ? [...after].filter((o) => !before.has(o)).sort() : [];
}

let before: Set<string> | undefined;

export const mochaHooks = {
  beforeAll(): void {
    before = inventory();
  },
  afterAll(): void {
    if (!before) return;
    const left = leftBehind(before);
    if (left.length) throw new Error(`the tests left ${left.length} object(s) on the lab: ${left.join(", ")}`);
  },
};
