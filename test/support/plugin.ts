// The kvm provider plugin as users install it: `npm run plugin`'s tarball of this commit,
// made once per test run, installed with `pulumi plugin install resource kvm VERSION --file`.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { repoRoot } from "./lab";
import { packedTarball } from "./package";
import { tempDir } from "./tmp";

export const pluginVersion = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

let tarball: string | undefined;
function pluginTarball(): string {
  tarball ??= execFileSync(path.join(repoRoot, "scripts", "plugin"), [tempDir("kvm-plugin-"), packedTarball()], { encoding: "utf8" }).trim();
  return tarball;
}

/** Installs the plugin into the PULUMI_HOME of `env` (a stack's environment). */
export function installPlugin(env: Record<string, string>): void {
  execFileSync("pulumi", ["plugin", "install", "resource", "kvm", pluginVersion, "--file", pluginTarball()], {
    env: { ...process.env, ...env },
    stdio: "pipe",
  });
}
