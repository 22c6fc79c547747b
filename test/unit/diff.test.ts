// Diff tables of the storage resources: what replaces, what updates, what is no change.
import * as assert from "assert";
import * as os from "os";
import * as path from "path";
import { setLogSink } from "../../provider/log";
import { UNKNOWN } from "../../provider/resources/unknown";
import { domainProvider } from "../../provider/kinds/domain/lifecycle";
import { imageProvider, ImageOutputs } from "../../provider/kinds/image/lifecycle";
import { volumeProvider, VolumeOutputs } from "../../provider/kinds/volume/lifecycle";

const host = { address: "hv1", user: "root", port: 22, privateKeyPath: "/k" };
const image: ImageOutputs = {
  kvmKind: "Image",
  host,
  pool: "default",
  name: "debian",
  source: { path: "/img/debian.qcow2" },
  path: "/p/debian",
  key: "/p/debian",
  format: "qcow2",
  capacityBytes: 1 << 30,
  sha256: "a".repeat(64),
};
const volume: VolumeOutputs = {
  kvmKind: "Volume",
  host,
  pool: "default",
  name: "disk",
  baseImage: "debian",
  capacity: 2 ** 31,
  path: "/p/disk",
  key: "/p/disk",
  format: "qcow2",
  capacityBytes: 2 ** 31,
};

describe("Image diff", () => {
  const table: [string, Partial<ImageOutputs>, string[], boolean][] = [
    ["nothing changed", {}, [], false],
    // another host holds both at once: the new one is made before the old one goes
    ["another host", { host: { ...host, address: "hv2" } }, ["host"], false],
    ["another port", { host: { ...host, port: 2222 } }, ["host"], false],
    ["a new key path only", { host: { ...host, privateKeyPath: "/other" } }, [], false],
    ["another pool", { pool: "fast" }, ["pool"], false],
    ["another name", { name: "debian2" }, ["name"], false],
    ["another source", { source: { path: "/img/other.qcow2" } }, ["source"], true],
    ["a pinned checksum", { source: { path: "/img/debian.qcow2", sha256: "b".repeat(64) } }, ["source"], true],
    ["an unknown source in preview", { source: { url: UNKNOWN } }, ["source"], true],
  ];
  for (const [what, change, replaces, dbr] of table) {
    it(what, async () => {
      const d = await imageProvider.diff(image.key, image, { ...image, ...change });
      assert.deepStrictEqual(d.replaces, replaces);
      assert.strictEqual(d.changes, replaces.length > 0 || what.includes("key path"));
      assert.strictEqual(d.deleteBeforeReplace, dbr, "a replacement keeping the name on the same host deletes first");
    });
  }
});

describe("Image diff by content", () => {
  const sha = "a".repeat(64);
  const table: [string, ImageOutputs["source"], { changes: boolean; replaces: string[] }][] = [
    ["the same bytes from another checkout directory", { path: "../ci-runner/debian.qcow2", sha256: sha }, { changes: true, replaces: [] }],
    ["the matching sha256 added", { path: "/img/debian.qcow2", sha256: sha }, { changes: true, replaces: [] }],
    ["a mirror URL with the same sha256", { url: "https://mirror.example/debian.qcow2", sha256: sha }, { changes: true, replaces: [] }],
    ["other bytes at the same path", { path: "/img/debian.qcow2", sha256: "c".repeat(64) }, { changes: true, replaces: ["source"] }],
    ["a URL with no checksum instead of a file", { url: "https://example/debian.qcow2" }, { changes: true, replaces: ["source"] }],
  ];
  for (const [what, source, want] of table) {
    it(what, async () => {
      const d = await imageProvider.diff(image.key, image, { ...image, source });
      assert.deepStrictEqual({ changes: d.changes, replaces: d.replaces }, want);
    });
  }
  it("is no change when the record and the source are the same, whatever the key order", async () => {
    const olds = { ...image, source: { path: "./debian.qcow2", sha256: sha } };
    const d = await imageProvider.diff(image.key, olds, { ...image, source: { sha256: sha, path: "./debian.qcow2" } });
    assert.deepStrictEqual({ changes: d.changes, replaces: d.replaces }, { changes: false, replaces: [] });
  });
});

describe("Volume diff of sizes libvirt rounds", () => {
  // what check records (the request in bytes) and what libvirt made of it
  const table: [string, number, number][] = [
    ['"1.5GB"', 1.5e9, 1500000256],
    ["1000001 bytes", 1000001, 1000448],
    ['"10GB"', 1e10, 10000000000],
    ["a pool that rounds to 4 MiB extents", 1.5e9, 1503657984],
  ];
  for (const [what, requested, made] of table) {
    it(`${what}: no diff after up; shrinking below the request replaces, growing updates`, async () => {
      const olds: VolumeOutputs = { ...volume, capacity: requested, capacityBytes: made };
      const same = await volumeProvider.diff(volume.key, olds, { ...volume, capacity: requested });
      assert.deepStrictEqual({ changes: same.changes, replaces: same.replaces }, { changes: false, replaces: [] });
      const shrunk = await volumeProvider.diff(volume.key, olds, { ...volume, capacity: requested - 1 });
      assert.deepStrictEqual(shrunk.replaces, ["capacity"]);
      const grown = await volumeProvider.diff(volume.key, olds, { ...volume, capacity: made + 1 });
      assert.deepStrictEqual({ changes: grown.changes, replaces: grown.replaces }, { changes: true, replaces: [] });
    });
  }
});

describe("Volume diff", () => {
  const table: [string, Partial<VolumeOutputs>, { changes: boolean; replaces: string[] }][] = [
    ["nothing changed", {}, { changes: false, replaces: [] }],
    ["capacity grown", { capacity: 2 ** 32 }, { changes: true, replaces: [] }],
    ["capacity shrunk", { capacity: 2 ** 30 }, { changes: true, replaces: ["capacity"] }],
    ["capacity unknown", { capacity: UNKNOWN }, { changes: true, replaces: [] }],
    ["another base image", { baseImage: "ubuntu" }, { changes: true, replaces: ["baseImage"] }],
    ["raw instead of qcow2", { format: "raw" }, { changes: true, replaces: ["format"] }],
    ["another host", { host: { ...host, address: "hv2" } }, { changes: true, replaces: ["host"] }],
  ];
  for (const [what, change, want] of table) {
    it(what, async () => {
      const d = await volumeProvider.diff(volume.key, volume, { ...volume, ...change });
      assert.deepStrictEqual({ changes: d.changes, replaces: d.replaces }, want);
    });
  }
});

describe("storage check", () => {
  it("with the host check off, only warns about a key file that is missing", async () => {
    const lines: string[] = [];
    setLogSink((l) => lines.push(l));
    process.env.PULUMI_KVM_SKIP_HOST_CHECK = "1";
    try {
      const r = await volumeProvider.check(undefined, { host: { ...host, privateKeyPath: "/nonexistent/key" }, resourceName: "v", capacity: "1GiB" } as any);
      assert.deepStrictEqual(r.failures, []);
      assert.ok(
        lines.some((l) => /warning: .*\/nonexistent\/key does not exist/.test(l)),
        lines.join("\n"),
      );
    } finally {
      delete process.env.PULUMI_KVM_SKIP_HOST_CHECK;
      setLogSink(undefined);
    }
  });

  it("fills defaults and tolerates unknowns", async () => {
    const r = await volumeProvider.check(undefined, { host: UNKNOWN as any, resourceName: "web-1-disk", baseImage: UNKNOWN, sourceFormat: UNKNOWN } as any);
    assert.deepStrictEqual(r.failures, []);
    assert.strictEqual(r.inputs.name, "web-1-disk");
    assert.strictEqual(r.inputs.pool, "default");
  });

  const bad: [string, Record<string, unknown>, string, RegExp][] = [
    ["a name with a slash", { name: "a/b", capacity: "1GiB" }, "name", /contains "\/"/],
    ["a name with ..", { name: "a..b", capacity: "1GiB" }, "name", /contains "\.\."/],
    ["a unit-less size", { capacity: "20" }, "capacity", /not a size/],
    ["a zero size", { capacity: 0 }, "capacity", /not a positive/],
    ["an absurd size", { capacity: "9999TiB" }, "capacity", /absurdly large/],
    ["no size for a blank volume", {}, "capacity", /needs capacity/],
    ["a raw overlay", { baseImage: "debian", format: "raw" }, "format", /must be qcow2/],
    ["a port out of range", { capacity: "1GiB", host: { ...host, port: 70000 } }, "host.port", /1-65535/],
  ];
  for (const [what, news, property, reason] of bad) {
    it(`names the property for ${what}`, async () => {
      const r = await volumeProvider.check(undefined, { host, resourceName: "v", ...news } as any);
      const f = r.failures.find((x) => x.property === property);
      assert.ok(f, JSON.stringify(r.failures));
      assert.match(f.reason, reason);
    });
  }
});

describe("credentials are not identity", () => {
  const domain = {
    kvmKind: "Domain",
    host,
    name: "web",
    type: "kvm",
    vcpu: 1,
    memory: 512,
    firmware: "bios",
    disks: [{ volume: "disk", pool: "default" }],
    networkInterfaces: [],
    running: true,
    autostart: false,
    uuid: "0b5b6a7e-1a2b-4c3d-9e8f-001122334455",
    state: "running",
    interfaces: [],
  } as any;
  const kinds: [string, any, any][] = [
    ["Image", imageProvider, image],
    ["Volume", volumeProvider, volume],
    ["Domain", domainProvider, domain],
  ];
  const logins: [string, Record<string, unknown>][] = [
    ["another key file", { privateKeyPath: "/rotated" }],
    ["an inline key", { privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\n…" }],
    ["a passphrase", { passphrase: "s3cret" }],
    ["the agent", { agent: true }],
    ["another known_hosts", { knownHostsPath: "/etc/ssh/ssh_known_hosts" }],
    ["a pinned host key", { hostKeyFingerprint: "SHA256:abc" }],
    ["other timeouts", { connectTimeout: 60, keepaliveInterval: 10, keepaliveCount: 5 }],
  ];
  const places: [string, Record<string, unknown>][] = [
    ["another address", { address: "hv2" }],
    ["another port", { port: 2222 }],
    ["another user", { user: "admin" }],
    ["another socket", { socketPath: "/var/run/libvirt/virtqemud-sock" }],
    ["another URI", { uri: "qemu:///session" }],
  ];
  for (const [kind, provider, olds] of kinds) {
    for (const [what, change] of logins) {
      it(`${kind}: ${what} updates in place`, async () => {
        const d = await provider.diff(olds.key ?? olds.uuid, olds, { ...olds, host: { ...host, ...change } });
        assert.deepStrictEqual({ changes: d.changes, replaces: d.replaces }, { changes: true, replaces: [] });
      });
    }
    for (const [what, change] of places) {
      // a VM moves to another host in an update (another user on the same one is only recorded)
      const moves = kind === "Domain";
      it(`${kind}: ${what} ${moves ? "updates (a move)" : "replaces, made there first"}`, async () => {
        const d = await provider.diff(olds.key ?? olds.uuid, olds, { ...olds, host: { ...host, ...change } });
        assert.deepStrictEqual(
          { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace },
          { changes: true, replaces: moves ? [] : ["host"], deleteBeforeReplace: false },
        );
      });
    }
  }
});

describe("host paths", () => {
  it("are recorded as written, and a record's absolute path of the same file is no change", async () => {
    process.env.PULUMI_KVM_SKIP_HOST_CHECK = "1";
    setLogSink(() => undefined);
    try {
      const news = {
        host: { address: "hv1", privateKeyPath: "./keys/id_ed25519", knownHostsPath: "~/.ssh/known_hosts", sshConfigPath: "config/ssh" },
        name: "disk",
        capacity: "1GiB",
      };
      const { inputs, failures } = await volumeProvider.check(undefined, news as never);
      assert.deepStrictEqual(failures, []);
      assert.deepStrictEqual(inputs.host, news.host, "check keeps the paths as written");
      const older = {
        ...volume,
        host: {
          ...news.host,
          privateKeyPath: path.resolve("keys/id_ed25519"),
          knownHostsPath: path.join(os.homedir(), ".ssh/known_hosts"),
          sshConfigPath: path.resolve("config/ssh"),
        },
      };
      const d = await volumeProvider.diff(volume.key, older, { ...volume, host: inputs.host });
      assert.strictEqual(d.changes, false, "the same files, however written");
      assert.strictEqual((await volumeProvider.diff(volume.key, older, { ...volume, host: { ...inputs.host, privateKeyPath: "./keys/other" } })).changes, true);
    } finally {
      delete process.env.PULUMI_KVM_SKIP_HOST_CHECK;
      setLogSink(undefined);
    }
  });
});
