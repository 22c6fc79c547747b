// An estate made with virsh alone (an isolated network with DHCP, a qcow2 base volume, an
// overlay on it, a raw data volume, a running domain using both on that network) brought
// under Pulumi through the plugin, as docs/import.md says: `pulumi-kvm discover`, then
// `pulumi import --file` into a YAML project whose stack config holds the provider's host.
// The first preview and refresh show no change, a memory edit applies in place, destroy
// removes exactly what was imported. Each kind is imported alone too, and a wrong ID, a host
// without the object and a provider without configuration each fail naming the fix. Made
// again, the estate is discovered as a TypeScript program that adopts it, run as users run it.
import * as assert from "assert";
import { spawnSync } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { e2eStack, E2eStack } from "../support/pulumi";
import { labEnv, repoRoot } from "../support/lab";
import { legEnv, legProject, programIn, testLegs } from "../support/package";
import { installPlugin } from "../support/plugin";
import { unroutedSubnet } from "../support/subnet";
import { tempDir } from "../support/tmp";
import { domainNames, mine, networkNames, removeNetwork, virsh, volumeNames } from "../support/virsh";

const only = (summary: Record<string, number | undefined>) => Object.fromEntries(Object.entries(summary).filter(([, n]) => n));

describe("e2e: an estate made with virsh, imported into a Pulumi YAML project", function () {
  this.timeout(600_000);
  const tag = `im${process.pid}`;
  const names = {
    filter: `${tag}-filter`,
    net: `${tag}-net`,
    base: `${tag}-base.qcow2`,
    overlay: `${tag}-overlay.qcow2`,
    data: `${tag}-data.raw`,
    vm: `${tag}-vm`,
  };
  const mac = "52:54:00:1e:00:01";
  const dir = tempDir("import-project-");
  let e: E2eStack | undefined;
  let ids: Record<string, string> = {};
  let subnet = "";
  const lab = () => labEnv();
  const pool = () => lab().pool;
  const volPath = (name: string) => virsh(["vol-path", "--pool", pool(), name]);

  /** The YAML project: no resources yet; the provider's host in stack config; with `lookups`, two functions of the provider too. */
  function project(resources = "", lookups = false): void {
    const functions = lookups
      ? "variables:\n  hv:\n    fn::invoke:\n      function: kvm:index:getHost\n      arguments: {}\n" +
        `  vmInfo:\n    fn::invoke:\n      function: kvm:index:getDomain\n      arguments:\n        name: ${names.vm}\n` +
        "outputs:\n  cpus: ${hv.cpus}\n  vmUuid: ${vmInfo.uuid}\n"
      : "";
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: kvm-import\nruntime: yaml\n${functions}${resources}`);
  }

  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(repoRoot, "dist", "cli", "main.js"), ...args], { encoding: "utf8", env: { ...process.env, ...e!.env } });
  const pulumi = (args: string[]) =>
    spawnSync("pulumi", [...args, "--cwd", dir, "--stack", e!.stack.name], { encoding: "utf8", env: { ...process.env, ...e!.env } });

  /** The estate, as an admin makes it (again after a destroy); `ids` what imports name it by. */
  function makeEstate(): void {
    const xml = path.join(dir, "net.xml");
    fs.writeFileSync(
      xml,
      `<network><name>${names.net}</name><ip address='${subnet}.1' prefix='24'><dhcp><range start='${subnet}.100' end='${subnet}.150'/><host mac='52:54:00:1e:00:09' ip='${subnet}.9'/></dhcp></ip></network>`,
    );
    virsh(["net-define", xml]);
    virsh(["net-start", names.net]);
    virsh(["vol-create-as", pool(), names.base, "32M", "--format", "qcow2"]);
    virsh(["vol-create-as", pool(), names.overlay, "48M", "--format", "qcow2", "--backing-vol", names.base, "--backing-vol-format", "qcow2"]);
    virsh(["vol-create-as", pool(), names.data, "8M", "--format", "raw"]);
    fs.writeFileSync(
      path.join(dir, "vm.xml"),
      `<domain type='qemu'><name>${names.vm}</name><memory unit='MiB'>128</memory><currentMemory unit='MiB'>64</currentMemory><vcpu>1</vcpu>` +
        // from its disk only: no network boot ROM asking for a lease (an address that comes later is drift)
        `<os><type arch='x86_64'>hvm</type><boot dev='hd'/></os><devices>` +
        `<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='${volPath(names.overlay)}'/><target dev='vda' bus='virtio'/></disk>` +
        `<disk type='file' device='disk'><driver name='qemu' type='raw'/><source file='${volPath(names.data)}'/><target dev='vdb' bus='virtio'/></disk>` +
        `<interface type='network'><mac address='${mac}'/><source network='${names.net}'/><model type='virtio'/></interface>` +
        `</devices></domain>`,
    );
    virsh(["define", path.join(dir, "vm.xml")]);
    virsh(["start", names.vm]);
    ids = {
      net: virsh(["net-uuid", names.net]),
      vm: virsh(["domuuid", names.vm]),
      base: volPath(names.base),
      overlay: volPath(names.overlay),
      data: volPath(names.data),
    };
  }

  before(async () => {
    subnet = unroutedSubnet("192.168.188");
    makeEstate();
    project();
    e = await e2eStack(dir, `import${tag}`, {
      "kvm:address": "127.0.0.1",
      "kvm:port": String(lab().port),
      "kvm:user": "root",
      "kvm:privateKeyPath": lab().key,
      "kvm:knownHostsPath": lab().knownHosts,
    });
    installPlugin(e.env);
  });

  after(async () => {
    await e?.stack.destroy().catch(() => undefined);
    await e?.remove();
    if (domainNames().includes(names.vm)) {
      if (/State:\s+running/.test(virsh(["dominfo", names.vm]))) virsh(["destroy", names.vm]);
      virsh(["undefine", names.vm, "--snapshots-metadata"]);
    }
    for (const v of [names.overlay, names.base, names.data]) if (volumeNames(lab()).includes(v)) virsh(["vol-delete", "--pool", pool(), v]);
    if (networkNames().includes(names.net)) removeNetwork(names.net);
    if (virsh(["nwfilter-list"]).includes(names.filter)) virsh(["nwfilter-undefine", names.filter]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A snapshot an admin recorded (metadata only, as `virsh snapshot-create --redefine` restores one): `pulumi import` reads it, nothing is taken. */
  function recordSnapshot(name: string, creationTime: number): string {
    const xml = path.join(dir, "snapshot.xml");
    const domain = virsh(["dumpxml", "--inactive", names.vm]);
    fs.writeFileSync(
      xml,
      `<domainsnapshot><name>${name}</name><description>made by hand</description><creationTime>${creationTime}</creationTime><state>shutoff</state>${domain}</domainsnapshot>`,
    );
    virsh(["snapshot-create", names.vm, xml, "--redefine"]);
    return `${ids.vm}/${name}/${creationTime}`;
  }

  it("imports each kind alone by pulumi import TYPE NAME ID, with the inputs that make it; a wrong ID and a missing object fail naming the fix", () => {
    const snapshot = recordSnapshot("before-upgrade", 1765000000);
    // a network filter an admin defined, with rules a NetworkFilter states
    fs.writeFileSync(
      path.join(dir, "filter.xml"),
      `<filter name='${names.filter}' chain='root'><rule action='accept' direction='in' priority='100'><tcp dstportstart='22'/></rule>` +
        `<rule action='drop' direction='in'><all/></rule></filter>`,
    );
    virsh(["nwfilter-define", path.join(dir, "filter.xml")]);
    const filterUuid = /<uuid>([^<]+)</.exec(virsh(["nwfilter-dumpxml", names.filter]))![1];
    const alone: [string, string, RegExp[]][] = [
      ["Snapshot", snapshot, [/name: before-upgrade/, /description: made by hand/, new RegExp(`domain: ${names.vm}`)]],
      ["NetworkFilter", filterUuid, [/action: accept/, /ports: '22'/, /priority: 100/, /action: drop/, /protocol: all/]],
      ["Network", ids.net, [/mode: isolated/, new RegExp(`start: ${subnet.replace(/\./g, "\\.")}\\.100`), /mac: 52:54:00:1e:00:09/]],
      ["Volume", ids.overlay, [new RegExp(`baseImage: ${names.base.replace(/\./g, "\\.")}`), /sourceFormat: qcow2/, /format: qcow2/]],
      ["Volume", ids.data, [/format: raw/, /capacity: 8MiB/]],
      ["Domain", ids.vm, [/memory: 64/, /maxMemory: 128/, new RegExp(`mac: ${mac}`), /format: raw/, /type: qemu/]],
      ["StoragePool", virsh(["pool-uuid", pool()]), [/type: dir/, new RegExp(`path: ${lab().poolDir.replace(/\//g, "\\/")}`)]],
    ];
    for (const [kind, id, expected] of alone) {
      const r = pulumi([
        "import",
        `kvm:index:${kind}`,
        `alone-${kind.toLowerCase()}`,
        id,
        "--preview-only",
        "--protect=false",
        "--out",
        path.join(dir, "alone.yaml"),
      ]);
      assert.strictEqual(r.status, 0, `${kind}: ${r.stdout}${r.stderr}`);
      const code = fs.readFileSync(path.join(dir, "alone.yaml"), "utf8");
      for (const re of expected) assert.match(code, re, `${kind}: ${code}`);
      assert.doesNotMatch(code, /host:|kvmKind|resourceName/, `${kind}: the provider's host stays the provider's: ${code}`);
    }
    const wrong = pulumi(["import", "kvm:index:Network", "x", "not-a-uuid", "--preview-only"]);
    assert.notStrictEqual(wrong.status, 0);
    assert.match(wrong.stdout + wrong.stderr, /the ID to import a Network by is its UUID, not "not-a-uuid".*virsh net-list --all --uuid/s);
    const otherTime = pulumi(["import", "kvm:index:Snapshot", "x", snapshot.replace(/\d+$/, "1765000001"), "--preview-only"]);
    assert.notStrictEqual(otherTime.status, 0, "a snapshot of the same name taken at another time is another snapshot");
    assert.match(otherTime.stdout + otherTime.stderr, /there is no snapshot before-upgrade of the domain with UUID .* taken at 1765000001/s);
    const image = pulumi(["import", "kvm:index:Image", "x", ids.base, "--preview-only"]);
    assert.notStrictEqual(image.status, 0);
    assert.match(image.stdout + image.stderr, /import .* as a kvm:index:Volume/s);
    const missing = pulumi(["import", "kvm:index:Domain", "x", crypto.randomUUID(), "--preview-only"]);
    assert.notStrictEqual(missing.status, 0);
    assert.match(missing.stdout + missing.stderr, /there is no domain with UUID .* on this host.*Check the ID and the provider's host \(kvm:address\)/s);
    // what the admin recorded stays theirs: the later cases adopt the domain without it
    virsh(["snapshot-delete", names.vm, "before-upgrade", "--metadata"]);
    virsh(["nwfilter-undefine", names.filter]);
  });

  it("discovers the estate, imports it with pulumi import --file; preview and refresh show no change, memory changes in place, destroy removes exactly it", async () => {
    const file = path.join(dir, "import.json");
    const found = cli(["discover", "--host", `root@127.0.0.1:${lab().port}`, "--identity", lab().key, "--known-hosts", lab().knownHosts, "--out", file]);
    assert.strictEqual(found.status, 0, found.stderr);
    const all = JSON.parse(fs.readFileSync(file, "utf8")).resources as { type: string; name: string; id: string; version: string }[];
    const ours = all.filter((r) => Object.values(ids).includes(r.id));
    assert.deepStrictEqual(
      ours.map((r) => [r.type, r.name]).sort(),
      [
        ["kvm:index:Domain", names.vm],
        ["kvm:index:Network", names.net],
        ["kvm:index:Volume", names.base],
        ["kvm:index:Volume", names.data],
        ["kvm:index:Volume", names.overlay],
      ].sort(),
    );
    assert.ok(
      all.some((r) => r.type === "kvm:index:StoragePool"),
      "the pools are listed too",
    );
    assert.ok(ours.every((r) => r.version === JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version));
    // the user keeps what they want under this stack: here the estate, not the lab's own objects
    fs.writeFileSync(file, JSON.stringify({ resources: ours }));
    const gen = path.join(dir, "gen.yaml");
    const imported = pulumi(["import", "--file", file, "--yes", "--protect=false", "--out", gen]);
    assert.strictEqual(imported.status, 0, imported.stdout + imported.stderr);
    project(fs.readFileSync(gen, "utf8"));

    assert.deepStrictEqual(only((await e!.stack.preview({ expectNoChanges: true })).changeSummary), { same: 6 });
    assert.deepStrictEqual(only((await e!.stack.refresh({ expectNoChanges: true })).summary.resourceChanges ?? {}), { same: 6 });

    // an edit of the generated program: memory 64 → 96 MiB, live, the same domain
    const code = fs.readFileSync(gen, "utf8");
    assert.match(code, /memory: 64\n/);
    // and the provider's functions: what a program reads of the host without managing it
    project(code.replace(/memory: 64\n/, "memory: 96\n"), true);
    const up = await e!.stack.up();
    assert.deepStrictEqual(only(up.summary.resourceChanges ?? {}), { same: 5, update: 1 });
    assert.strictEqual(up.outputs.vmUuid.value, ids.vm, "getDomain");
    assert.ok(up.outputs.cpus.value >= 1, "getHost");
    assert.strictEqual(virsh(["domuuid", names.vm]), ids.vm, "the same domain");
    // the balloon's target in the definition; the running VM kept running (its live currentMemory is what qemu's
    // balloon reports, which a VM without a guest OS never changes)
    assert.match(virsh(["dumpxml", "--inactive", names.vm]), /<currentMemory unit='KiB'>98304<\/currentMemory>/);
    assert.match(virsh(["dominfo", names.vm]), /State:\s+running/);

    const domainsBefore = mine(domainNames()).filter((n) => n !== names.vm);
    const volumesBefore = mine(volumeNames(lab())).filter((n) => ![names.base, names.overlay, names.data].includes(n));
    const networksBefore = mine(networkNames()).filter((n) => n !== names.net);
    await e!.stack.destroy();
    assert.deepStrictEqual(mine(domainNames()), domainsBefore, "the imported domain went, no other");
    assert.deepStrictEqual(mine(volumeNames(lab())), volumesBefore, "the imported volumes went, no other");
    assert.deepStrictEqual(mine(networkNames()), networksBefore, "the imported network went, no other");
  });

  it("fails the import of a provider without configuration, naming the settings", async () => {
    const bare = await e2eStack(dir, `bare${tag}`);
    try {
      installPlugin(bare.env);
      const r = spawnSync("pulumi", ["import", "kvm:index:Network", "x", ids.net, "--preview-only", "--cwd", dir, "--stack", `bare${tag}`], {
        encoding: "utf8",
        env: { ...process.env, ...bare.env },
      });
      assert.notStrictEqual(r.status, 0);
      assert.match(r.stdout + r.stderr, /this Network has no host and its provider no configuration: .*pulumi config set kvm:address HOST/s);
    } finally {
      await bare.remove();
    }
  });
  it("discovers the estate as a TypeScript program (--program typescript --match): its preview only adopts, up takes the objects over (the same UUIDs, running, not restarted), destroy removes exactly them", async () => {
    // made again after the YAML stack's destroy (still there when this case runs alone)
    if (!domainNames().includes(names.vm)) makeEstate();
    const leg = testLegs()[0];
    const program = programIn(legProject(leg), `adopt${tag}`, {});
    fs.writeFileSync(path.join(program, "Pulumi.yaml"), "name: kvm-adopt\nruntime: nodejs\n");
    const found = cli([
      "discover",
      "--host",
      `root@127.0.0.1:${lab().port}`,
      "--identity",
      lab().key,
      "--known-hosts",
      lab().knownHosts,
      "--match",
      `^${tag}-`,
      "--program",
      "typescript",
      "--out",
      path.join(program, "index.ts"),
    ]);
    assert.strictEqual(found.status, 0, found.stderr);
    assert.match(found.stderr, /5 object\(s\) of root@127\.0\.0\.1:\d+ written to/);
    // the user's one edit: the VM has no OS to answer ACPI, so its graceful shutdowns would each wait the default 60 s
    const index = path.join(program, "index.ts");
    fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace(/"running": true/, '"running": true,\n  "shutdownTimeout": "1s"'));
    // the user's own run of it, type-checked as users run it
    const adopting = await e2eStack(program, `adopt${tag}`, {}, legEnv(legProject(leg)));
    try {
      const preview = await adopting.stack.preview({ diff: true });
      assert.deepStrictEqual(only(preview.changeSummary), { create: 6 }, "the stack and the five objects, adopted: nothing replaced or deleted");
      const process = virsh(["domid", names.vm]);
      const up = await adopting.stack.up();
      assert.strictEqual(up.summary.result, "succeeded");
      assert.strictEqual(virsh(["domid", names.vm]), process, "taken over as it runs: no restart");
      assert.deepStrictEqual(only((await adopting.stack.preview({ expectNoChanges: true })).changeSummary), { same: 6 });
      assert.deepStrictEqual([virsh(["domuuid", names.vm]), virsh(["net-uuid", names.net])], [ids.vm, ids.net], "the same domain and network");
      assert.match(virsh(["dominfo", names.vm]), /State:\s+running/);

      const domainsBefore = mine(domainNames()).filter((n) => n !== names.vm);
      const volumesBefore = mine(volumeNames(lab())).filter((n) => ![names.base, names.overlay, names.data].includes(n));
      const networksBefore = mine(networkNames()).filter((n) => n !== names.net);
      await adopting.stack.destroy();
      assert.deepStrictEqual(mine(domainNames()), domainsBefore, "the adopted domain went, no other");
      assert.deepStrictEqual(mine(volumeNames(lab())), volumesBefore, "the adopted volumes went, no other");
      assert.deepStrictEqual(mine(networkNames()), networksBefore, "the adopted network went, no other");
    } finally {
      await adopting.stack.destroy().catch(() => undefined);
      await adopting.remove();
    }
  });
});
