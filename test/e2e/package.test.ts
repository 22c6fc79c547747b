// The package as users install it: the tarball a clean clone packs, its types in a
// strict consumer under every module resolution, its command, and programs installed
// by npm workspaces (hoisted, program in a subfolder), pnpm and yarn, whose provider
// process must find `pulumi-kvm/provider` (the serialized shim requires it from its
// working directory). Runs in each test leg (test/support/package).
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runCli } from "../support/cli";
import { labEnv, repoRoot } from "../support/lab";
import {
  consumerTsconfig,
  installedCli,
  isFirstLeg,
  legEnv,
  legProject,
  LegProject,
  packedTarball,
  programFiles,
  programIn,
  testLegs,
  TEST_PROGRAMS,
} from "../support/package";
import { e2eStack } from "../support/pulumi";
import { volumeNames } from "../support/virsh";
import { tempDir } from "../support/tmp";

const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));

for (const leg of testLegs()) {
  const tag = `${process.pid}${leg.name}`;

  describe(`e2e [${leg.name}]: the package as users install it`, function () {
    this.timeout(600_000);
    let project: LegProject;

    /** `tsc --noEmit` of the TypeScript under `dir` with `tsconfig`, by the leg's TypeScript and node. */
    function typeCheck(dir: string, tsconfig: string): void {
      fs.writeFileSync(path.join(dir, "tsconfig.json"), tsconfig);
      const tsc = path.join(project.root, "node_modules", "typescript", "bin", "tsc");
      try {
        execFileSync(project.node, [tsc, "--noEmit", "-p", dir], { encoding: "utf8" });
      } catch (err) {
        assert.fail(`tsc failed:\n${(err as { stdout?: string }).stdout}`);
      }
    }

    before(() => {
      project = legProject(leg);
      console.log(`      leg ${project.leg.name}: node ${project.nodeVersion}, @pulumi/pulumi ${project.sdkVersion}`);
    });

    it("packs from a clean clone: dist of sdk, provider, cli and plugin, README, docs and LICENSE; no tests, sources or source maps", () => {
      const tarball = packedTarball();
      const entries = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" })
        .trim()
        .split("\n")
        .map((e) => e.replace(/^package\//, ""));
      console.log(`      ${path.basename(tarball)}: ${entries.length} files, ${(fs.statSync(tarball).size / 1024).toFixed(1)} KiB`);
      for (const f of [
        "package.json",
        "LICENSE",
        "README.md",
        "docs/resources.md",
        "docs/connection.md",
        "docs/health.md",
        "docs/troubleshooting.md",
        "dist/sdk/index.js",
        "dist/sdk/index.d.ts",
        "dist/provider/index.js",
        "dist/provider/index.d.ts",
        "dist/cli/main.js",
        "dist/plugin/main.js",
      ]) {
        assert.ok(entries.includes(f), `${f} is in the tarball`);
      }
      const strays = entries.filter((f) => !/^(package\.json|LICENSE|README\.md|docs\/.+\.md|dist\/(sdk|provider|cli|plugin)\/.+\.(js|d\.ts))$/.test(f));
      assert.deepStrictEqual(strays, [], "nothing else: no tests, bench, sources, maps or build info");
      const license = execFileSync("tar", ["xzOf", tarball, "package/LICENSE"], { encoding: "utf8" });
      assert.match(license, /Apache License\s+Version 2\.0/);
    });

    for (const [moduleResolution, module] of [
      ["node16", "node16"],
      ["nodenext", "nodenext"],
      ["bundler", "esnext"],
      ["node10", "commonjs"],
    ]) {
      it(`type-checks a strict consumer (skipLibCheck off) with moduleResolution ${moduleResolution}`, () => {
        const dir = programIn(project, `consumer-${moduleResolution}`, { "index.ts": "test/programs/consumer/index.ts" });
        typeCheck(dir, consumerTsconfig(moduleResolution, module));
      });
    }

    it("type-checks the test programs against the installed package (their runs only transpile: programEnv)", () => {
      for (const name of TEST_PROGRAMS) programIn(project, `typecheck/${name}`, programFiles(name));
      typeCheck(path.join(project.root, "programs", "typecheck"), consumerTsconfig());
    });

    it("installs a command that runs on the leg's node: --version and health --help", async () => {
      const installed = { node: project.node, cli: installedCli(project) };
      const v = await runCli(["--version"], { installed });
      assert.strictEqual(v.stdout.trim(), JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version);
      const help = await runCli(["health", "--help"], { installed });
      assert.strictEqual(help.code, 0);
      assert.match(help.stdout, /usage: pulumi-kvm health/);
    });

    // The smallest program that makes an object: the user program with a blank disk.
    const managers: { name: string; layout: (root: string) => string; install: (root: string, env: NodeJS.ProcessEnv) => void }[] = [
      {
        name: "npm workspaces (hoisted node_modules, the program in packages/infra)",
        layout: (root) => {
          fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "mono", private: true, workspaces: ["packages/*"] }));
          return path.join(root, "packages", "infra");
        },
        install: (root, env) => execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, env, stdio: "pipe" }),
      },
      {
        name: "pnpm",
        layout: (root) => root,
        install: (root, env) => execFileSync(packageManager("pnpm", "pnpm@10"), ["install"], { cwd: root, env, stdio: "pipe" }),
      },
      {
        name: "yarn (classic)",
        layout: (root) => root,
        install: (root, env) =>
          execFileSync(packageManager("yarn", "yarn@1.22.22"), ["install", "--non-interactive", "--no-progress"], { cwd: root, env, stdio: "pipe" }),
      },
    ];

    // the other managers lay the same files out otherwise, whatever the Node and SDK (isFirstLeg)
    for (const m of isFirstLeg(leg) ? managers : managers.slice(0, 1)) {
      it(`runs preview, up and destroy of a program installed with ${m.name}`, async () => {
        const lab = labEnv();
        const root = tempDir("kvm-pm-");
        const dir = m.layout(root);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(
          path.join(dir, "package.json"),
          JSON.stringify(
            {
              name: "infra",
              private: true,
              dependencies: {
                "pulumi-kvm": `file:${packedTarball()}`,
                "@pulumi/pulumi": project.sdkVersion,
                typescript: "~5.9.3",
                "ts-node": "^10.9.2",
                "@types/node": project.nodeVersion.replace(/^v(\d+).*/, "^$1"),
              },
            },
            null,
            2,
          ),
        );
        fs.writeFileSync(path.join(dir, "tsconfig.json"), consumerTsconfig());
        for (const [to, from] of Object.entries(programFiles("user"))) fs.copyFileSync(path.join(repoRoot, from), path.join(dir, to));
        fs.mkdirSync(path.join(dir, ".lab"));
        fs.copyFileSync(path.join(repoRoot, ".lab", "env"), path.join(dir, ".lab", "env"));
        const env = { ...process.env, ...legEnv(project) };
        m.install(root, env);
        const prefix = `pm${tag}${m.name.slice(0, 3).replace(/\W/g, "")}`;
        const e = await e2eStack(dir, prefix, { prefix, disk: "blank", capacity: "1048576" }, legEnv(project));
        try {
          assert.deepStrictEqual(only((await e.stack.preview()).changeSummary), { create: 3 });
          const up = await e.stack.up();
          assert.strictEqual(up.summary.result, "succeeded");
          assert.ok(volumeNames(lab).includes(`${prefix}-disk`));
          await e.stack.destroy();
          assert.ok(!volumeNames(lab).includes(`${prefix}-disk`));
        } finally {
          await e.stack.destroy().catch(() => undefined);
          await e.remove();
          fs.rmSync(root, { recursive: true, force: true });
        }
      });
    }
  });

  /** A package manager's command, installed once into ~/.cache/pulumi-kvm from npm. */
  function packageManager(bin: string, spec: string): string {
    const dir = path.join(os.homedir(), ".cache", "pulumi-kvm", `pm-${spec.replace(/[@/]/g, "-")}`);
    const file = path.join(dir, "node_modules", ".bin", bin);
    if (!fs.existsSync(file)) execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir, spec], { stdio: "pipe" });
    return file;
  }
}
