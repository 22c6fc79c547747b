// The lab's domains, networks, network filters, pools and volumes, listed before the first test and after the
// last: the run fails naming anything it left. A test that leaks is a failing test, not a
// silent after-hook. npm test (suite.ts) takes the lists around its phases; a run of some
// files (mocha --require dist/test/support/leaks.js) has them as a root hook.
import * as fs from "fs";
import * as path from "path";
import { domainNames, filterNames, networkNames, poolNames, virsh } from "./virsh";

const repoRoot = path.resolve(__dirname, "..", "..", "..");

/** Every object on the lab, as "kind name" lines; undefined when the lab is not up. */
export function inventory(): Set<string> | undefined {
  if (!fs.existsSync(path.join(repoRoot, ".lab", "env"))) {
    if (process.env.KVM_LAB_REQUIRED === "1") throw new Error("the lab is required (KVM_LAB_REQUIRED=1) and not up: run scripts/lab up");
    return undefined;
  }
  const out = new Set<string>();
  for (const d of domainNames()) out.add(`domain ${d}`);
  for (const n of networkNames()) out.add(`network ${n}`);
  for (const f of filterNames()) out.add(`network filter ${f}`);
  for (const p of poolNames()) {
    out.add(`pool ${p}`);
    if (!/^\s*State:\s+running/m.test(virsh(["pool-info", p]))) continue;
    virsh(["pool-refresh", p]);
    for (const line of virsh(["vol-list", p]).split("\n")) {
      const name = line.trim().split(/\s+/)[0];
      if (name) out.add(`volume ${p}/${name}`);
    }
  }
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
