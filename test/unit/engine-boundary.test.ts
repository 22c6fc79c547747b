// The engine boundary: every resource kind's outputs, for each optional input absent
// and present, survive the Struct.fromJavaScript round trip Pulumi's dynamic-provider
// host applies to every result. Raw outputs with an absent member do not.
import { PartialInitError } from "../../provider/resources/partial-init";
import * as assert from "assert";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { checkInputs, DomainInputs } from "../../provider/kinds/domain/inputs";
import { composeOutputs, unobservedOutputs } from "../../provider/kinds/domain/spec";
import { engineError, toEngine } from "../../provider/resources/engine";
import { imageOutputs, ImageInputs } from "../../provider/kinds/image/lifecycle";
import type { VolumeInputs } from "../../provider/kinds/volume/lifecycle";
import { volumeOutputs } from "../../provider/kinds/volume/declaration";
import { parseDomainXml } from "../../provider/xml/domain";

const host = { address: "hv1", user: "root", port: 22, privateKeyPath: "/k" };
const roundTrip = (v: unknown) => Struct.fromJavaScript(v as any).toJavaScript();

/** The smallest inputs, then each optional one present alone, then all of them. */
function matrix<T extends object>(base: T, optional: Partial<T>): T[] {
  return [base, ...Object.entries(optional).map(([k, v]) => ({ ...base, [k]: v })), { ...base, ...optional }];
}

const domainXml = `<domain type="qemu"><name>vm</name><uuid>0b5b6a7e-1a2b-4c3d-9e8f-001122334455</uuid><vcpu>1</vcpu><memory unit="KiB">131072</memory>
  <devices><disk device="disk"><source file="/p/vm.qcow2"/><target dev="vda" bus="virtio"/></disk>
  <interface type="network"><mac address="52:54:00:aa:bb:cc"/><source network="default"/></interface></devices></domain>`;

function domainCases(): object[] {
  const base = { host, resourceName: "vm", disks: [{ volume: "vm.qcow2" }] } as DomainInputs;
  const inputs = matrix<DomainInputs>(base, {
    name: "vm",
    type: "qemu",
    vcpu: 2,
    memory: "256MiB",
    firmware: "uefi",
    machine: "q35",
    cpuMode: "host-model",
    networkInterfaces: [{ network: "default", mac: "52:54:00:aa:bb:cc" }],
    cloudInit: { hostname: "vm", userData: "#cloud-config\n" },
    kernel: "/boot/vmlinuz",
    running: true,
    autostart: true,
    qemuAgent: true,
    graphics: "vnc",
    waitForIp: { timeout: "1m" },
    shutdownTimeout: "10s",
  }).map((d) => checkInputs(d, []));
  const parsed = parseDomainXml(domainXml);
  return inputs.flatMap((d) => [
    // what create records for a domain without cloud-init: no seed volume, no pool
    composeOutputs(d, { parsed, state: 1, active: true, autostart: false, addresses: [] }, { seedVolume: undefined, seedPool: undefined }),
    composeOutputs(
      d,
      { parsed, state: 1, active: true, autostart: false, addresses: [{ mac: "52:54:00:aa:bb:cc", addresses: ["10.0.0.5"] }] },
      { seedVolume: "vm-seed.iso", seedPool: "default" },
    ),
    unobservedOutputs(d, { name: "vm", uuid: Buffer.alloc(16, 7), id: 1 }, { seedVolume: undefined, seedPool: undefined }),
  ]);
}

function volumeCases(): object[] {
  const made = { path: "/p/v", key: "/p/v", capacityBytes: 1000448 };
  return matrix<VolumeInputs>(
    { host, pool: "default", name: "v" },
    { resourceName: "v", baseImage: "img", sourceFormat: "qcow2", capacity: 1000001, format: "raw" },
  ).flatMap((i) => [
    volumeOutputs(i, made, i.format ?? "qcow2", undefined, {}),
    volumeOutputs(i, made, "qcow2", { path: "/p/img", format: "qcow2" }, { marker: "0d5a5d2e-8b1c-4b4e-9a43-2f6a0e6f1c11" }),
  ]);
}

function imageCases(): object[] {
  const made = { path: "/p/i", key: "/p/i", capacityBytes: 67108864 };
  return matrix<ImageInputs>({ host, pool: "default", name: "i", source: { path: "./i.qcow2" } }, { resourceName: "i", format: "qcow2" })
    .concat([{ host, pool: "default", name: "i", source: { url: "https://example.invalid/i.qcow2", sha256: undefined } }])
    .map((i) => imageOutputs(i, made, "qcow2", "a".repeat(64), { mtime: "1796410298.340162042" }));
}

describe("engine boundary", () => {
  for (const [kind, cases] of [
    ["Domain", domainCases],
    ["Volume", volumeCases],
    ["Image", imageCases],
  ] as const) {
    it(`${kind} outputs survive the dynamic-provider host's Struct round trip for every optional input absent and present`, () => {
      const all = cases();
      assert.ok(all.length >= 3);
      for (const outs of all) {
        const crossed = toEngine(outs);
        assert.deepStrictEqual(roundTrip(crossed), JSON.parse(JSON.stringify(outs)), "nothing lost but absent members");
      }
    });
  }

  it("the raw outputs of a minimal Domain hold an absent member the host refuses (what failed `pulumi up`)", () => {
    const raw = domainCases()[0];
    assert.throws(() => roundTrip(raw), /Unexpected struct type/);
    assert.doesNotThrow(() => roundTrip(toEngine(raw)));
  });

  it("drops undefined at any depth, keeps array positions, and turns bigint, Buffer and non-finite numbers into JSON values", () => {
    const v = toEngine({ a: undefined, b: [1, undefined, { c: undefined, d: 2n }], e: Buffer.from("hi"), f: NaN, g: () => 1, h: 2n ** 70n });
    assert.deepStrictEqual(v, { b: [1, null, { d: 2 }], e: "6869", f: null, h: "1180591620717411303424" });
    assert.deepStrictEqual(roundTrip(v), v);
  });

  it("normalises a partial-init error's properties and leaves other errors alone", () => {
    const err = new PartialInitError<unknown>("no IP", "u", { a: undefined, b: 1n }, ["r"]);
    assert.deepStrictEqual((engineError(err) as typeof err).properties, { b: 1 });
    assert.strictEqual(err.id, "u", "the dynamic-provider host recognises a partial init by its id");
    const plain = new Error("x");
    assert.strictEqual(engineError(plain), plain);
  });
});
