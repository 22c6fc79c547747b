// `pulumi-kvm discover --program typescript`: the program it writes for an estate shaped as
// the imports read one (a pool, an isolated network with DHCP, a qcow2 base, an overlay on
// it, a raw data volume, a domain using both) type-checks, strictly, against the package's
// own classes, adopts each object, and orders destroy by what each object names.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { typescriptProgram, DiscoveredObject } from "../../cli/discover-program";
import { tempDir } from "../support/tmp";

const repoRoot = path.join(__dirname, "../../..");

const estate: DiscoveredObject[] = [
  {
    kind: "Domain",
    name: "web-1",
    inputs: {
      host: { address: "hv" },
      name: "web-1",
      type: "qemu",
      vcpu: 1,
      memory: 64,
      maxMemory: 128,
      disks: [
        { volume: "web-1.qcow2", pool: "default", format: "qcow2" },
        { volume: "data.raw", pool: "default", format: "raw" },
      ],
      networkInterfaces: [{ network: "lan", mac: "52:54:00:1e:00:01" }],
      running: true,
      autostart: false,
    },
  },
  {
    kind: "Volume",
    name: "web-1.qcow2",
    inputs: {
      host: { address: "hv" },
      pool: "default",
      name: "web-1.qcow2",
      format: "qcow2",
      capacity: "8MiB",
      baseImage: "base.qcow2",
      sourceFormat: "qcow2",
    },
  },
  { kind: "Volume", name: "base.qcow2", inputs: { host: { address: "hv" }, pool: "default", name: "base.qcow2", format: "qcow2", capacity: "8MiB" } },
  { kind: "Volume", name: "data.raw", inputs: { host: { address: "hv" }, pool: "default", name: "data.raw", format: "raw", capacity: "4MiB" } },
  {
    kind: "Network",
    name: "lan",
    inputs: {
      host: { address: "hv" },
      name: "lan",
      mode: "isolated",
      addresses: ["192.168.123.1/24"],
      dhcp: { start: "192.168.123.10", end: "192.168.123.99" },
    },
  },
  { kind: "StoragePool", name: "default", inputs: { host: { address: "hv" }, name: "default", path: "/var/lib/libvirt/images" } },
];

/** The diagnostics of a strict type-check of `file`, with "pulumi-kvm" resolved to this checkout's SDK. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    noUnusedLocals: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    baseUrl: repoRoot,
    paths: { "pulumi-kvm": ["sdk/index.ts"] },
    typeRoots: [path.join(repoRoot, "node_modules/@types")],
    types: ["node"],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("discover --program typescript", () => {
  const code = typescriptProgram({ address: "hv.example", port: 2222, user: "root", privateKeyPath: "/keys/id_ed25519" }, estate, "root@hv.example:2222");

  it("writes a program that type-checks strictly against the package's classes", function () {
    this.timeout(60_000);
    const file = path.join(tempDir("discover-program-"), "index.ts");
    fs.writeFileSync(file, code);
    assert.deepStrictEqual(typeErrors(file), [], code);
  });

  it("a program with a wrong input fails that type-check (the check can fail)", function () {
    this.timeout(60_000);
    const file = path.join(tempDir("discover-program-"), "index.ts");
    fs.writeFileSync(file, code.replace('"memory": 64', '"memroy": 64'));
    assert.ok(typeErrors(file).some((e) => /memroy/.test(e)));
  });

  it("adopts each object on the one host literal, pools and networks first, a base before its overlay, domains last", () => {
    assert.match(
      code,
      /^const host: kvm\.HostArgs = \{\n {2}"address": "hv\.example",\n {2}"port": 2222,\n {2}"user": "root",\n {2}"privateKeyPath": "\/keys\/id_ed25519"\n\};$/m,
    );
    const made = [...code.matchAll(/new kvm\.(\w+)\("([^"]+)", \{\n {2}host,\n {2}adopt: true,/g)].map((m) => `${m[1]} ${m[2]}`);
    assert.deepStrictEqual(made, ["StoragePool default", "Network lan", "Volume base.qcow2", "Volume web-1.qcow2", "Volume data.raw", "Domain web-1"]);
    assert.doesNotMatch(code, /"host":/, "no object states its own host");
  });

  it("makes each object depend on what it names, so destroy removes a domain before its disks and an overlay before its base", () => {
    const deps = (id: string) => /\{ dependsOn: \[([^\]]*)\] \}\);$/m.exec(code.split(`export const ${id} =`)[1].split("export const")[0])?.[1];
    assert.strictEqual(deps("web1Qcow2"), "defaultStoragePool, baseQcow2");
    assert.strictEqual(deps("baseQcow2"), "defaultStoragePool");
    assert.strictEqual(deps("web1"), "web1Qcow2, dataRaw, lan");
    assert.strictEqual(deps("lan"), undefined);
  });

  it("gives a domain's disk on an adopted volume as that kvm.Volume (its recorded base comes with it), and one on a volume left out by name", () => {
    const web = code.split("export const web1 =")[1];
    assert.match(web, /"volume": web1Qcow2,/);
    assert.match(web, /"volume": dataRaw,/);
    const alone = typescriptProgram(
      { address: "hv" },
      estate.filter((o) => o.kind === "Domain"),
      "hv",
    );
    assert.match(alone, /"volume": "web-1\.qcow2",/);
  });
});
