// Real Pulumi runs through the Automation API with the CLI the lab built, a file
// backend in a temp dir and a fixed passphrase.
import * as fs from "fs";
import * as path from "path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { labEnv } from "./lab";
import { tempDir } from "./tmp";

export const PASSPHRASE = "pulumi-kvm-e2e";

export interface E2eStack {
  stack: Stack;
  backend: string;
  env: Record<string, string>;
  remove(): Promise<void>;
}

export function pulumiEnv(backend: string): Record<string, string> {
  const lab = labEnv();
  if (!lab.pulumiBin) throw new Error("the Pulumi CLI is not built: run scripts/pulumi-cli (it records KVM_LAB_PULUMI_BIN in .lab/env)");
  if (!process.env.PATH?.includes(lab.pulumiBin)) process.env.PATH = `${lab.pulumiBin}:${process.env.PATH}`;
  return {
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_HOME: path.join(backend, ".pulumi-home"),
    PATH: process.env.PATH,
  };
}

/** A stack of the program in `workDir`; `sharedBackend` lets a second checkout see the same stack. */
export async function e2eStack(
  workDir: string,
  stackName: string,
  config: Record<string, string> = {},
  extraEnv: Record<string, string> = {},
  sharedBackend?: string,
): Promise<E2eStack> {
  const backend = sharedBackend ?? tempDir("pulumi-e2e-");
  const env = { ...pulumiEnv(backend), ...extraEnv };
  const stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir }, { envVars: env });
  for (const [k, v] of Object.entries(config)) await stack.setConfig(k, { value: v });
  return {
    stack,
    backend,
    env,
    async remove() {
      await stack.workspace.removeStack(stackName, { force: true }).catch(() => undefined);
      fs.rmSync(path.join(workDir, `Pulumi.${stackName}.yaml`), { force: true });
      if (!sharedBackend) fs.rmSync(backend, { recursive: true, force: true });
    },
  };
}

/** The Diagnostics section of a run's output (progress lines repeat what it holds). */
export function diagnostics(output: string): string {
  const i = output.lastIndexOf("Diagnostics:");
  return i < 0 ? "" : output.slice(i);
}

/** Health probes per host in a run at PULUMI_KVM_LOG ≥ 1: the daemon version calls. */
export function probesPerHost(output: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of diagnostics(output).matchAll(/host=(\S+) rpc=virConnectGetLibVersion/g)) out[m[1]] = (out[m[1]] ?? 0) + 1;
  return out;
}
