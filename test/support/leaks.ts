// A root hook of the whole suite (npm test): the lab's domains, pools, networks and
// volumes are listed before the first test and after the last, and the run fails naming
// anything it left. A test that leaks is a failing test, not a silent after-hook.
import * as fs from "fs";
import * as path from "path";
import { domainNames, networkNames, poolNames, virsh } from "./virsh";

const repoRoot = path.resolve(__dirname, "..", "..", "..");

/** Every object on the lab, as "kind name" lines; undefined when the lab is not up. */
function inventory(): Set<string> | undefined {
  if (!fs.existsSync(path.join(repoRoot, ".lab", "env"))) {
    if (process.env.KVM_LAB_REQUIRED === "1") throw new Error("the lab is required (KVM_LAB_REQUIRED=1) and not up: run scripts/lab up");
    return undefined;
  }
  const out = new Set<string>();
  for (const d of domainNames()) out.add(`domain ${d}`);
  for (const n of networkNames()) out.add(`network ${n}`);
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

let before: Set<string> | undefined;

export const mochaHooks = {
  beforeAll(): void {
    before = inventory();
  },
  afterAll(): void {
    const after = before && inventory();
    if (!before || !after) return;
    const left = [...after].filter((o) => !before!.has(o)).sort();
    if (left.length) throw new Error(`the tests left ${left.length} object(s) on the lab: ${left.join(", ")}`);
  },
};
