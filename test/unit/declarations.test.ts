// The kinds' declarations are the one source: the docs' tables are theirs, every
// property's change is classed by the diff as declared, and the registry of kinds is
// complete wherever a kind is looked up.
import * as assert from "assert";
import * as fs from "fs";
import { classify, UNLISTED_CODE_CLASS } from "../../provider/errors";
import { GONE_CODES, OBJECTS } from "../../provider/kinds/objects";
import { KIND_NAMES } from "../../provider/kinds";
import { check } from "../../provider/resources/dispatch";
import { domainDeclaration } from "../../provider/kinds/domain/declaration";
import { diffOf, Property, withDefaults } from "../../provider/resources/properties";
import { LibvirtError } from "../../provider/rpc/errors";
import { DECLARATIONS, DOCS_FILE, renderDocs } from "../support/property-docs";

const host = { address: "hv1", user: "root", port: 22, privateKeyPath: "/k" };

/** A record of each kind as an earlier create left it (outputs over checked inputs). */
const RECORDS: Record<string, Record<string, unknown>> = {
  Image: {
    kvmKind: "Image",
    host,
    pool: "default",
    name: "debian",
    source: { path: "/img/debian.qcow2" },
    format: "qcow2",
    sha256: "a".repeat(64),
    adopt: false,
  },
  Volume: {
    kvmKind: "Volume",
    host,
    pool: "default",
    name: "disk",
    baseImage: "debian",
    sourceFormat: "qcow2",
    capacity: 2 ** 31,
    capacityBytes: 2 ** 31,
    format: "qcow2",
    adopt: false,
  },
  Domain: {
    kvmKind: "Domain",
    host,
    name: "web",
    type: "kvm",
    vcpu: 1,
    memory: 512,
    firmware: "bios",
    disks: [{ volume: "disk", pool: "default", format: "qcow2" }],
    networkInterfaces: [{ network: "default", model: "virtio" }],
    running: true,
    autostart: false,
    qemuAgent: false,
    graphics: "none",
    adopt: false,
  },
  StoragePool: { kvmKind: "StoragePool", host, name: "fast", type: "dir", path: "/srv/fast", autostart: true, state: "running", adopt: false },
  Network: {
    kvmKind: "Network",
    host,
    name: "lab",
    mode: "nat",
    addresses: ["192.168.171.1/24"],
    dhcp: { start: "192.168.171.10", end: "192.168.171.99" },
    autostart: true,
    active: true,
    adopt: false,
  },
  Snapshot: {
    kvmKind: "Snapshot",
    host,
    domain: "web",
    name: "before-upgrade",
    description: "before the upgrade",
    memory: false,
    domainUuid: "0".repeat(32),
    creationTime: 1796433292,
    state: "shutoff",
  },
  NetworkFilter: {
    kvmKind: "NetworkFilter",
    host,
    name: "web-in",
    rules: [{ action: "accept", direction: "in", protocol: "tcp", ports: "22" }],
    uuid: "1".repeat(32),
    adopt: false,
  },
};

/** For every compared property, a value that is a change of its declared class. */
const CHANGES: Record<string, Record<string, unknown>> = {
  Image: {
    host: { ...host, privateKeyPath: "/rotated" },
    pool: "fast",
    name: "debian-13",
    source: { path: "/checkout-2/debian.qcow2", sha256: "a".repeat(64) },
    format: "raw",
    adopt: true,
  },
  Volume: {
    host: { ...host, privateKeyPath: "/rotated" },
    pool: "fast",
    name: "disk-2",
    baseImage: "ubuntu",
    cloneOf: "debian",
    capacity: 2 ** 32,
    format: "raw",
    adopt: true,
  },
  Domain: {
    host: { ...host, privateKeyPath: "/rotated" },
    name: "web-2",
    type: "qemu",
    vcpu: 2,
    memory: 1024,
    maxVcpu: 4,
    maxMemory: 4096,
    restartPolicy: "never",
    firmware: "uefi",
    secureBoot: true,
    machine: "q35",
    tpm: { version: "2.0", model: "tpm-crb" },
    xmlPatches: [{ xpath: "/domain/devices", add: "<watchdog model='i6300esb'/>" }],
    cpuMode: "host-passthrough",
    disks: [{ volume: "disk", pool: "default", format: "qcow2", cache: "none" }],
    networkInterfaces: [{ network: "lab", model: "virtio" }],
    cloudInit: { userData: "#cloud-config\n" },
    kernel: "/boot/vmlinuz",
    initrd: "/boot/initrd.img",
    cmdline: "console=ttyS0",
    running: false,
    autostart: true,
    qemuAgent: true,
    graphics: "vnc",
    waitForIp: true,
    shutdownTimeout: "2m",
    adopt: true,
  },
  StoragePool: { host: { ...host, privateKeyPath: "/rotated" }, name: "fast-2", type: "other", path: "/srv/other", autostart: false, adopt: true },
  Network: {
    host: { ...host, privateKeyPath: "/rotated" },
    name: "lab-2",
    mode: "isolated",
    bridge: "br7",
    addresses: ["192.168.172.1/24"],
    dhcp: { start: "192.168.171.10", end: "192.168.171.99", hosts: [{ mac: "52:54:00:00:00:10", ip: "192.168.171.10" }] },
    domain: "lab.internal",
    autostart: false,
    adopt: true,
  },
  Snapshot: {
    host: { ...host, privateKeyPath: "/rotated" },
    domain: "db",
    domainUuid: "0b5b6a7e-1a2b-4c3d-9e8f-001122334466",
    name: "after-upgrade",
    description: "another",
    memory: true,
  },
  NetworkFilter: {
    host: { ...host, privateKeyPath: "/rotated" },
    name: "web-out",
    rules: [{ action: "drop", direction: "in", protocol: "all" }],
    adopt: true,
  },
};

/** For a property that escalates (replaceWhen), a value that needs a new object. */
const ESCALATIONS: Record<string, Record<string, unknown>> = {
  Image: { host: { ...host, address: "hv2" }, source: { path: "/img/debian.qcow2", sha256: "b".repeat(64) } },
  Volume: { host: { ...host, port: 2222 }, capacity: 2 ** 30 },
  StoragePool: { host: { ...host, address: "hv2" } },
  Network: { host: { ...host, address: "hv2" }, dhcp: { start: "192.168.171.20", end: "192.168.171.99" } },
  Snapshot: { host: { ...host, address: "hv2" } },
  NetworkFilter: { host: { ...host, address: "hv2" } },
};

describe("declarations", () => {
  it("docs/resources.md's input tables are the declarations' (npm run docs writes them)", () => {
    const text = fs.readFileSync(DOCS_FILE, "utf8");
    assert.strictEqual(text, renderDocs(text), "run npm run docs");
  });

  it("declares every kind of the registry once", () => {
    assert.deepStrictEqual(DECLARATIONS.map((d) => d.kind).sort(), [...KIND_NAMES].sort());
  });

  for (const decl of DECLARATIONS) {
    describe(`${decl.kind} diff, from its declaration`, () => {
      const olds = RECORDS[decl.kind];
      it("is no change when nothing changed", () => {
        assert.deepStrictEqual(diffOf(decl, olds, { ...olds }), { changes: false, replaces: [], deleteBeforeReplace: false });
      });
      for (const [name, p] of Object.entries<Property<any, any>>(decl.properties)) {
        if (p.hint) {
          it(`${name}: a hint, never compared`, () => {
            assert.strictEqual(diffOf(decl, olds, { ...olds, [name]: "anything" }).changes, false);
          });
          continue;
        }
        it(`${name}: a change is "${p.change}"`, () => {
          assert.ok(name in CHANGES[decl.kind], `the test has no changed value for ${decl.kind}.${name}: add one`);
          const d = diffOf(decl, olds, { ...olds, [name]: CHANGES[decl.kind][name] });
          assert.strictEqual(d.changes, true);
          assert.deepStrictEqual(d.replaces, p.change === "replace" ? [name] : []);
          const renames = decl.namedBy.includes(name);
          assert.strictEqual(d.deleteBeforeReplace, p.change === "replace" && !renames, "a replacement under the same name deletes first");
        });
        if (p.replaceWhen) {
          it(`${name}: ${p.replaceWhen.doc} replaces`, () => {
            assert.ok(name in ESCALATIONS[decl.kind], `the test has no replacing value for ${decl.kind}.${name}: add one`);
            const d = diffOf(decl, olds, { ...olds, [name]: ESCALATIONS[decl.kind][name] });
            assert.deepStrictEqual(d.replaces, [name]);
            // on another host the replacement is made first; elsewhere the name decides
            assert.strictEqual(d.deleteBeforeReplace, name !== "host" && !decl.namedBy.includes(name));
          });
        }
        if (p.default !== undefined) {
          it(`${name}: left out counts as its default ${JSON.stringify(p.default)}`, () => {
            const recorded = { ...olds, [name]: p.default };
            const news: Record<string, unknown> = { ...recorded };
            delete news[name];
            assert.strictEqual(diffOf(decl, recorded, news).changes, false);
            assert.deepStrictEqual(withDefaults(decl, news)[name], p.default);
          });
        }
      }
    });
  }

  it("moves a Domain to another host in an update, not by a replacement", () => {
    const olds = RECORDS.Domain;
    const d = diffOf(domainDeclaration, olds as never, { ...olds, host: { ...host, address: "hv2" } } as never);
    assert.deepStrictEqual(d, { changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("routes an unknown kind to a clear error, not to some kind's code", async () => {
    for (const kvmKind of ["toString", "Checkpoint", undefined]) {
      await assert.rejects(() => check({}, { kvmKind }), /unknown resource kind/);
    }
  });

  it("classes a libvirt code it does not list explicitly, and every gone code as not-found", () => {
    const err = (codeName: string) => Object.assign(Object.create(LibvirtError.prototype) as LibvirtError, { codeName, message: codeName });
    assert.strictEqual(classify(err("VIR_ERR_NO_XEN")).errorClass, UNLISTED_CODE_CLASS);
    for (const code of GONE_CODES) assert.strictEqual(classify(err(`VIR_ERR_${code}`)).errorClass, "not-found", code);
    assert.deepStrictEqual(Object.keys(OBJECTS).sort(), ["domain", "network", "networkFilter", "pool", "snapshot", "volume"]);
  });
});
