// Every Pulumi language: the kvm provider plugin as users install it (`npm run plugin`'s
// tarball of this commit, `pulumi plugin install resource kvm VERSION --file`) running a
// Pulumi YAML program and a Go program (on the Go SDK generated from the plugin's schema)
// on the lab through the real CLI and the YAML and Go language hosts.
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { e2eStack, E2eStack, probesPerHost } from "../support/pulumi";
import { fleetLabConfig, labEnv, repoRoot } from "../support/lab";
import { installPlugin, pluginVersion } from "../support/plugin";
import { tempDir } from "../support/tmp";
import { domainNames, filterNames, mine, virsh, volumeNames } from "../support/virsh";
import { FileServer } from "../support/http-server";
import { packageSchema } from "../../plugin/schema";

const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));
const version = pluginVersion;

/** The Go and Python SDKs generated from this commit's schema, made once. */
let sdks: string | undefined;
function generatedSdks(): string {
  if (!sdks) {
    sdks = tempDir("kvm-sdks-");
    execFileSync(path.join(repoRoot, "scripts", "gen-sdk"), [sdks], { stdio: "pipe" });
  }
  return sdks;
}

/** The programs' common path: a preview naming the kinds, an up with the VM's IP, then a preview with no change. */
async function previewUpAndNoChange(stack: Stack, kinds = ["Image", "Volume", "Domain"]): Promise<void> {
  const preview = await stack.preview();
  assert.deepStrictEqual(only(preview.changeSummary), { create: kinds.length + 1 });
  for (const kind of kinds) assert.match(preview.stdout, new RegExp(`\\+\\s+kvm:index:${kind}\\s`), `the preview names kvm:index:${kind}`);
  const up = await stack.up();
  assert.strictEqual(up.summary.result, "succeeded");
  assert.match(up.outputs.ip.value, /^192\.168\.150\.\d+$/);
  assert.strictEqual(up.outputs.state.value, "running");
  assert.deepStrictEqual(only((await stack.preview()).changeSummary), { same: kinds.length + 1 }, "no change after up");
}

interface ProgramStack extends E2eStack {
  /** Destroys the stack and checks the host has the domains and volumes it had before. */
  destroyLeavesNothing(): Promise<void>;
}

/** A stack of the program in test/programs/NAME, with the plugin installed as the docs say (into this run's PULUMI_HOME). */
async function programStack(
  name: string,
  prefix: string,
  prepare: (dir: string) => void = () => undefined,
  config: Record<string, string> = {},
): Promise<ProgramStack> {
  const lab = labEnv();
  const volumesBefore = mine(volumeNames(lab));
  const domainsBefore = mine(domainNames());
  const filtersBefore = mine(filterNames());
  const dir = tempDir(`${name}-program-`);
  fs.cpSync(path.join(repoRoot, "test", "programs", name), dir, { recursive: true });
  prepare(dir);
  const e = await e2eStack(dir, `${name}${prefix}`, {
    prefix,
    port: String(lab.port),
    privateKeyPath: lab.key,
    knownHostsPath: lab.knownHosts,
    imagePath: lab.image,
    network: lab.network,
    ...config,
  });
  installPlugin(e.env);
  return {
    ...e,
    async destroyLeavesNothing() {
      await e.stack.destroy();
      assert.deepStrictEqual(mine(domainNames()), domainsBefore, "no domain left");
      assert.deepStrictEqual(mine(volumeNames(lab)), volumesBefore, "no volume left");
      assert.deepStrictEqual(mine(filterNames()), filtersBefore, "no network filter left");
    },
  };
}

describe("e2e: a Pulumi YAML program on the kvm provider plugin", function () {
  this.timeout(600_000);
  const prefix = `yl${process.pid}`;
  const TOKEN = "s3cret-mirror-token";
  /** Pulumi's marker of a secret value in a deployment (sdk/go/common/resource/sig). */
  const SECRET_SIG = "4dabf18193072939515e22adb298388d";
  let e: ProgramStack | undefined;
  let server: FileServer | undefined;

  before(async () => {
    // the image from a URL whose query carries a token, as a signed mirror URL does
    server = await FileServer.start(labEnv().image);
    e = await programStack("yaml", prefix, undefined, { imageUrl: `${server.url("image.qcow2")}?token=${TOKEN}` });
  });

  it("serves the schema generated from the declarations (pulumi package get-schema kvm)", () => {
    const served = execFileSync("pulumi", ["package", "get-schema", "kvm"], { env: { ...process.env, ...e!.env }, encoding: "utf8" });
    // the CLI hands it back bound and serialized again: the provider's settings as config variables, sorted
    const { config, ...schema } = JSON.parse(served) as { config: { variables?: Record<string, unknown> } };
    const { config: declared, ...expected } = packageSchema(version);
    assert.deepStrictEqual(Object.keys(config.variables ?? {}).sort(), Object.keys(declared.variables).sort());
    assert.deepStrictEqual(schema, expected);
  });

  after(async () => {
    await e?.stack.destroy().catch(() => undefined);
    await e?.remove();
    await server?.close();
  });

  it("generates the Python SDK from the schema with Pulumi's own code generator, and it compiles", () => {
    const py = path.join(generatedSdks(), "python", "pulumi_kvm");
    execFileSync("python3", [
      "-m",
      "py_compile",
      ...fs
        .readdirSync(py)
        .filter((f) => f.endsWith(".py"))
        .map((f) => path.join(py, f)),
    ]);
    for (const kind of ["Image", "Volume", "Domain", "StoragePool", "Network", "Snapshot"]) {
      const pyFile = `${kind.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()}.py`;
      assert.match(fs.readFileSync(path.join(py, pyFile), "utf8"), new RegExp(`class ${kind}\\(pulumi\\.CustomResource\\)`), pyFile);
    }
    // the structured inputs are typed: a host is a class of its own
    assert.match(fs.readFileSync(path.join(py, "_inputs.py"), "utf8"), /class HostArgs:/);
  });

  it("previews, brings the VM up with an IP, previews no change, updates in place, refreshes and destroys; nothing is left", async () => {
    const stack = e!.stack;
    await previewUpAndNoChange(stack, ["Image", "Volume", "NetworkFilter", "Domain"]);
    // the NIC names the filter, whose rules libvirt holds as the program states them
    assert.match(virsh(["dumpxml", `${prefix}-vm`]), new RegExp(`<filterref filter='${prefix}-filter'/>`));
    assert.match(
      virsh(["nwfilter-dumpxml", `${prefix}-filter`]),
      /<rule action='drop' direction='in' priority='500'>\s*<tcp state='NEW' dstportstart='8000' dstportend='8080'\/>/,
    );

    // secret in the state (exportStack shows secrets' plaintext, each under Pulumi's secret signature):
    // the cloud-init seed, as the kind declares it, and the Image's source, whose URL carries a token
    const resources = (await stack.exportStack()).deployment.resources as { type: string; inputs: Record<string, any>; outputs: Record<string, any> }[];
    const isSecret = (v: unknown) => !!v && typeof v === "object" && (v as Record<string, unknown>)[SECRET_SIG] !== undefined;
    const of = (type: string) => resources.find((r) => r.type === type)!;
    assert.ok(server!.requests.length > 0, "the image came from the URL");
    for (const [type, property] of [
      ["kvm:index:Domain", "cloudInit"],
      ["kvm:index:Image", "source"],
    ]) {
      assert.ok(isSecret(of(type).inputs[property]), `${type} ${property} is not secret in the inputs: ${JSON.stringify(of(type).inputs[property])}`);
      assert.ok(isSecret(of(type).outputs[property]), `${type} ${property} is not secret in the outputs`);
    }

    await stack.setConfig("autostart", { value: "true" });
    const updated = await stack.up();
    assert.deepStrictEqual(only(updated.summary.resourceChanges ?? {}), { same: 4, update: 1 });
    assert.match(updated.stdout, /~\s+kvm:index:Domain vm updated .*\[diff: ~autostart\]/);
    assert.match(virsh(["dominfo", `${prefix}-vm`]), /Autostart:\s+enable/);

    const refreshed = await stack.refresh();
    assert.deepStrictEqual(only(refreshed.summary.resourceChanges ?? {}), { same: 5 });

    await e!.destroyLeavesNothing();
  });
});

describe("e2e: the fleet example in YAML, one explicit kvm provider per host", function () {
  this.timeout(300_000);

  it("previews a VM on each host through its provider: each resource is checked on its provider's host, once per host", async () => {
    const lab = labEnv();
    const dir = tempDir("fleet-yaml-");
    fs.cpSync(path.join(repoRoot, "examples", "fleet-yaml"), dir, { recursive: true });
    const e = await e2eStack(dir, `fleetyaml${process.pid}`, { ...fleetLabConfig(lab), memory: "256" }, { PULUMI_KVM_LOG: "1" });
    try {
      installPlugin(e.env);
      const out: string[] = [];
      const p = await e.stack.preview({ onOutput: (line) => out.push(line) });
      // the stack, the two providers, and an image, a disk and a VM on each host
      assert.deepStrictEqual(only(p.changeSummary), { create: 9 });
      const probes = probesPerHost(out.join(""));
      assert.deepStrictEqual([probes[`root@127.0.0.1:${lab.port}`], probes[`root@127.0.0.1:${lab.port2}`]], [1, 1], JSON.stringify(probes));
      for (const port of [lab.port, lab.port2]) {
        // each provider dials its host as it is configured, before its resources' checks
        assert.match(out.join(""), new RegExp(`host=root@127\\.0\\.0\\.1:${port} dialled ahead of its first check`));
      }
    } finally {
      await e.remove();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("e2e: a Go program on the kvm provider plugin and its generated Go SDK", function () {
  this.timeout(600_000);
  const prefix = `gl${process.pid}`;
  let e: ProgramStack | undefined;

  before(async () => {
    // as the docs say: the generated SDK beside the program (its go.mod's replace directive), then go mod tidy
    e = await programStack("go", prefix, (dir) => {
      fs.cpSync(path.join(generatedSdks(), "go"), path.join(dir, "sdk", "go"), { recursive: true });
      execFileSync("go", ["mod", "tidy"], { cwd: dir, stdio: "pipe" });
    });
  });

  after(async () => {
    await e?.stack.destroy().catch(() => undefined);
    await e?.remove();
  });

  it("previews, brings the VM up with an IP through the Go language host, previews no change and destroys; nothing is left", async () => {
    const stack = e!.stack;
    await previewUpAndNoChange(stack);
    assert.match(virsh(["dominfo", `${prefix}-vm`]), /State:\s+running/);

    await e!.destroyLeavesNothing();
  });
});
