// A domain update's plan, from the declaration: what applies to the running VM, what
// needs the one restart, and the attach and detach that turn one device list into another.
import * as assert from "assert";
import { deviceChanges } from "../../provider/resources/domain-devices";
import { DomainInputs, DomainOutputs } from "../../provider/resources/domain-inputs";
import { refusedRestart, updatePlan } from "../../provider/resources/domain-update";

const boot = { volume: "os.qcow2", pool: "default", device: "disk" as const, bus: "virtio" as const, format: "qcow2" as const };
const data = { volume: "data.qcow2", pool: "default", device: "disk" as const, bus: "virtio" as const, format: "qcow2" as const };
const lan = { network: "default", model: "virtio" };
const olds = {
  kvmKind: "Domain",
  host: { address: "hv1" },
  name: "web",
  vcpu: 1,
  memory: 1024,
  maxVcpu: 2,
  maxMemory: 2048,
  disks: [boot],
  networkInterfaces: [lan],
  running: true,
  autostart: false,
  uuid: "u",
  state: "running",
  interfaces: [],
} as unknown as DomainOutputs;
const plan = (change: Partial<DomainInputs>) => updatePlan(olds, { ...olds, ...change });

describe("domain update plan", () => {
  const table: [string, Partial<DomainInputs>, { live: string[]; restartFor: string[] }][] = [
    ["vcpu within maxVcpu", { vcpu: 2 }, { live: ["vcpu"], restartFor: [] }],
    ["memory within maxMemory", { memory: 1536 }, { live: ["memory"], restartFor: [] }],
    ["a raised ceiling", { vcpu: 3, maxVcpu: 4 }, { live: ["vcpu"], restartFor: ["maxVcpu"] }],
    ["a data disk added", { disks: [boot, data] }, { live: ["disks"], restartFor: [] }],
    ["a cdrom added", { disks: [boot, { ...data, device: "cdrom", bus: "sata" }] }, { live: [], restartFor: ["disks"] }],
    ["a disk added with a boot order", { disks: [boot, { ...data, bootOrder: 2 }] }, { live: [], restartFor: ["disks"] }],
    ["another boot disk", { disks: [data] }, { live: [], restartFor: ["disks"] }],
    ["a kept disk's cache changed", { disks: [{ ...boot, cache: "none" }] }, { live: [], restartFor: ["disks"] }],
    ["a NIC added", { networkInterfaces: [lan, { network: "lab", model: "virtio" }] }, { live: ["networkInterfaces"], restartFor: [] }],
    ["a NIC removed", { networkInterfaces: [] }, { live: ["networkInterfaces"], restartFor: [] }],
    ["a NIC's model changed", { networkInterfaces: [{ ...lan, model: "e1000" }] }, { live: [], restartFor: ["networkInterfaces"] }],
    ["a NIC's filter given", { networkInterfaces: [{ ...lan, filter: "web-in" }] }, { live: [], restartFor: ["networkInterfaces"] }],
    [
      "a NIC added behind a filter",
      { networkInterfaces: [lan, { network: "lab", model: "virtio", filter: "web-in" }] },
      { live: ["networkInterfaces"], restartFor: [] },
    ],
    ["power and autostart", { running: false, autostart: true }, { live: ["running", "autostart"], restartFor: [] }],
  ];
  for (const [what, change, want] of table) {
    it(what, () => assert.deepStrictEqual(plan(change), want));
  }

  it("lists the attach and detach of a device change", () => {
    const second = { network: "lab", model: "virtio", mac: "52:54:00:00:00:99" };
    const withBoth = { ...olds, disks: [boot, data], networkInterfaces: [lan, second] };
    assert.deepStrictEqual(deviceChanges(withBoth, { ...withBoth, disks: [boot], networkInterfaces: [lan] }), {
      attachDisks: [],
      detachDisks: [data],
      attachNics: [],
      detachNics: [second],
    });
    assert.deepStrictEqual(deviceChanges(olds, withBoth), { attachDisks: [data], detachDisks: [], attachNics: [second], detachNics: [] });
    assert.strictEqual(deviceChanges(withBoth, { ...withBoth, disks: [data, boot] }), undefined, "a new order is a restart");
  });

  it("refuses with restartPolicy never only what needs the restart", () => {
    assert.strictEqual(refusedRestart(olds, { ...olds, restartPolicy: "never", vcpu: 2, disks: [boot, data] }), undefined);
    assert.deepStrictEqual(refusedRestart(olds, { ...olds, restartPolicy: "never", maxMemory: 4096 })?.property, "maxMemory");
    assert.strictEqual(refusedRestart(olds, { ...olds, maxMemory: 4096 }), undefined, "restarts are allowed by default");
  });
});
