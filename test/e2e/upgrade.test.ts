// A stack made by pulumi-kvm 0.1.0 (test/fixtures/pulumi-kvm-0.1.0.tgz, the release
// whose resources all had the type pulumi-nodejs:dynamic:Resource) upgraded to this
// package: the aliases move every resource to its typed name in place.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { labEnv, repoRoot } from "../support/lab";
import { isFirstLeg, legProject, programFiles, programIn, projectWith, testLegs, programEnv } from "../support/package";
import { e2eStack, E2eStack } from "../support/pulumi";
import { domainNames, mine, virsh, volumeNames } from "../support/virsh";

const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));
const userFiles = programFiles("user");

async function types(e: E2eStack): Promise<string[]> {
  const state = await e.stack.exportStack();
  return (state.deployment.resources ?? [])
    .map((r: { type: string }) => r.type)
    .filter((t: string) => t.startsWith("pulumi-nodejs:"))
    .sort();
}

// the older release's state and the upgrade are the same whatever Node and SDK run them (isFirstLeg)
for (const leg of testLegs().filter(isFirstLeg)) {
  const tag = `${process.pid}${leg.name}`;

  describe(`e2e [${leg.name}]: upgrading a stack made by pulumi-kvm 0.1.0`, function () {
    this.timeout(600_000);

    it("moves Image, Volume and Domain to pulumi-nodejs:dynamic/kvm:* with no replace, and the new version destroys them", async () => {
      const lab = labEnv();
      const volumesBefore = mine(volumeNames(lab));
      const domainsBefore = mine(domainNames());
      const old = projectWith(path.join(repoRoot, "test", "fixtures", "pulumi-kvm-0.1.0.tgz"), leg);
      const prefix = `upg${tag}`;
      // today's user program; 0.1.0's types lack what later cases use, so its run only transpiles (as every test program's does)
      const before = await e2eStack(programIn(old, "user", userFiles), prefix, { prefix, domain: "minimal" }, programEnv(old));
      let after: E2eStack | undefined;
      try {
        const made = await before.stack.up();
        assert.strictEqual(made.summary.result, "succeeded");
        assert.deepStrictEqual(await types(before), Array(3).fill("pulumi-nodejs:dynamic:Resource"));
        const uuid = virsh(["domuuid", `${prefix}-vm`]).trim();

        const dir = programIn(legProject(leg), "upgraded", userFiles);
        fs.copyFileSync(path.join(before.stack.workspace.workDir, `Pulumi.${prefix}.yaml`), path.join(dir, `Pulumi.${prefix}.yaml`));
        after = await e2eStack(dir, prefix, {}, programEnv(legProject(leg)), before.backend);
        assert.deepStrictEqual(only((await after.stack.preview()).changeSummary), { same: 4 }, "the alias matches: nothing is created, replaced or deleted");
        const up = await after.stack.up();
        assert.strictEqual(up.summary.result, "succeeded");
        assert.deepStrictEqual(only(up.summary.resourceChanges ?? {}), { same: 4 });
        assert.deepStrictEqual(await types(after), ["pulumi-nodejs:dynamic/kvm:Domain", "pulumi-nodejs:dynamic/kvm:Image", "pulumi-nodejs:dynamic/kvm:Volume"]);
        assert.strictEqual(virsh(["domuuid", `${prefix}-vm`]).trim(), uuid, "the same VM");
        assert.deepStrictEqual(only((await after.stack.preview()).changeSummary), { same: 4 });

        await after.stack.destroy();
        assert.deepStrictEqual(mine(volumeNames(lab)), volumesBefore);
        assert.deepStrictEqual(mine(domainNames()), domainsBefore);
      } finally {
        await (after ?? before).stack.destroy().catch(() => undefined);
        await after?.remove();
        await before.remove();
        fs.rmSync(old.root, { recursive: true, force: true });
      }
    });
  });
}
