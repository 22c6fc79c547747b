// Every Pulumi language: the kvm provider plugin as users install it (`npm run plugin`'s
// tarball of this commit, `pulumi plugin install resource kvm VERSION --file`) running a
// Pulumi YAML program on the lab through the real CLI and the YAML language host.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { e2eStack, E2eStack } from "../support/pulumi";
import { labEnv, repoRoot } from "../support/lab";
import { packedTarball } from "../support/package";
import { tempDir } from "../support/tmp";
import { domainNames, virsh, volumeNames } from "../support/virsh";
import { packageSchema } from "../../plugin/schema";

const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));

describe("e2e: a Pulumi YAML program on the kvm provider plugin", function () {
  this.timeout(600_000);
  const prefix = `yl${process.pid}`;
  const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
  let e: E2eStack | undefined;
  let volumesBefore: string[];
  let domainsBefore: string[];

  before(async () => {
    const lab = labEnv();
    volumesBefore = volumeNames(lab);
    domainsBefore = domainNames();
    const out = tempDir("kvm-plugin-");
    const tarball = execFileSync(path.join(repoRoot, "scripts", "plugin"), [out, packedTarball()], { encoding: "utf8" }).trim();
    const dir = tempDir("yaml-program-");
    fs.copyFileSync(path.join(repoRoot, "test", "programs", "yaml", "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
    e = await e2eStack(dir, `yaml${prefix}`, {
      prefix,
      port: String(lab.port),
      privateKeyPath: lab.key,
      knownHostsPath: lab.knownHosts,
      imagePath: lab.image,
      network: lab.network,
    });
    // as the docs say: the plugin from its tarball into the plugin cache (this run's PULUMI_HOME)
    execFileSync("pulumi", ["plugin", "install", "resource", "kvm", version, "--file", tarball], { env: { ...process.env, ...e.env }, stdio: "pipe" });
  });

  it("serves the schema generated from the declarations (pulumi package get-schema kvm)", () => {
    const served = execFileSync("pulumi", ["package", "get-schema", "kvm"], { env: { ...process.env, ...e!.env }, encoding: "utf8" });
    // the CLI hands it back bound and serialized again: with the (empty) provider config it fills in
    const { config, ...schema } = JSON.parse(served) as Record<string, unknown>;
    assert.deepStrictEqual(config, {});
    assert.deepStrictEqual(schema, packageSchema(version));
  });

  after(async () => {
    await e?.stack.destroy().catch(() => undefined);
    await e?.remove();
  });

  it("generates Go and Python SDKs from the schema with Pulumi's own code generators: the Go SDK builds, the Python SDK compiles", () => {
    const out = tempDir("kvm-sdks-");
    execFileSync(path.join(repoRoot, "scripts", "gen-sdk"), [out], { stdio: "pipe" });
    // the Go generator's default import path (no importBasePath in the schema) is example.com/pulumi-kvm/sdk/go/kvm
    fs.writeFileSync(path.join(out, "go.mod"), "module example.com/pulumi-kvm/sdk\n\ngo 1.24\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.274.1\n");
    execFileSync("go", ["mod", "tidy"], { cwd: out, env: { ...process.env, GOFLAGS: "-mod=mod" }, stdio: "pipe" });
    execFileSync("go", ["build", "./go/..."], { cwd: out, stdio: "pipe" });
    const py = path.join(out, "python", "pulumi_kvm");
    execFileSync("python3", [
      "-m",
      "py_compile",
      ...fs
        .readdirSync(py)
        .filter((f) => f.endsWith(".py"))
        .map((f) => path.join(py, f)),
    ]);
    for (const kind of ["Image", "Volume", "Domain", "StoragePool", "Network", "Snapshot"]) {
      const goFile = `${kind[0].toLowerCase()}${kind.slice(1)}.go`;
      assert.match(fs.readFileSync(path.join(out, "go", "kvm", goFile), "utf8"), new RegExp(`func New${kind}\\(ctx \\*pulumi\\.Context`), goFile);
      const pyFile = `${kind.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()}.py`;
      assert.match(fs.readFileSync(path.join(py, pyFile), "utf8"), new RegExp(`class ${kind}\\(pulumi\\.CustomResource\\)`), pyFile);
    }
  });

  it("previews, brings the VM up with an IP, previews no change, updates in place, refreshes and destroys; nothing is left", async () => {
    const stack = e!.stack;
    const preview = await stack.preview();
    assert.deepStrictEqual(only(preview.changeSummary), { create: 4 });
    for (const kind of ["Image", "Volume", "Domain"])
      assert.match(preview.stdout, new RegExp(`\\+\\s+kvm:index:${kind}\\s`), `the preview names kvm:index:${kind}`);

    const up = await stack.up();
    assert.strictEqual(up.summary.result, "succeeded");
    assert.match(up.outputs.ip.value, /^192\.168\.150\.\d+$/);
    assert.strictEqual(up.outputs.state.value, "running");
    assert.deepStrictEqual(only((await stack.preview()).changeSummary), { same: 4 }, "no change after up");

    // the cloud-init seed is a secret in the state, as the kind declares it
    const state = JSON.stringify(await stack.exportStack());
    assert.doesNotMatch(state, new RegExp(`"hostname":"${prefix}-vm"`), "cloudInit is stored encrypted");

    await stack.setConfig("autostart", { value: "true" });
    const updated = await stack.up();
    assert.deepStrictEqual(only(updated.summary.resourceChanges ?? {}), { same: 3, update: 1 });
    assert.match(updated.stdout, /~\s+kvm:index:Domain vm updated .*\[diff: ~autostart\]/);
    assert.match(virsh(["dominfo", `${prefix}-vm`]), /Autostart:\s+enable/);

    const refreshed = await stack.refresh();
    assert.deepStrictEqual(only(refreshed.summary.resourceChanges ?? {}), { same: 4 });

    await stack.destroy();
    assert.deepStrictEqual(domainNames(), domainsBefore, "no domain left");
    assert.deepStrictEqual(volumeNames(labEnv()), volumesBefore, "no volume left");
  });
});
