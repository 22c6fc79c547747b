// A domain update's plan, from the declaration: what applies to the running VM, what
// needs the one restart, and the attach and detach that turn one device list into another.
import * as assert from "assert";
import { deviceChanges } from "../../provider/kinds/domain/devices";
import { DomainInputs, DomainOutputs } from "../../provider/kinds/domain/inputs";
import { onlineInGuest, refusedRestart, updatePlan } from "../../provider/kinds/domain/update";
import { setLogSink } from "../../provider/log";

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

  describe("bringing hot-added vCPUs online through the guest agent", () => {
    const dom = { name: "web", uuid: Buffer.alloc(16), id: 1 };
    const web = { ...olds, vcpu: 2 } as unknown as DomainInputs;
    /** An agent that answers with the given failures in turn, then succeeds. */
    const agent = (failures: string[]) => {
      const calls: number[] = [];
      return {
        calls,
        setDomainVcpus: async (_d: unknown, n: number, flags: number) => {
          calls.push(flags);
          const failure = failures.shift();
          if (failure) throw new Error(failure);
          assert.strictEqual(n, 2);
          return undefined;
        },
      };
    };
    const warnings: string[] = [];
    beforeEach(() => {
      warnings.length = 0;
      setLogSink((line, severity) => severity === "warning" && warnings.push(line));
    });
    afterEach(() => setLogSink(undefined));

    it("waits out a guest that has not taken the vCPU in yet, however many answers that takes", async () => {
      const lv = agent(Array(40).fill("guest agent reports less cpu than requested (VIR_ERR_INTERNAL_ERROR)"));
      await onlineInGuest(lv, dom, web, "hv1", 0);
      assert.strictEqual(lv.calls.length, 41);
      assert.ok(
        lv.calls.every((flags) => flags === 8),
        "each call is VIR_DOMAIN_VCPU_GUEST",
      );
      assert.deepStrictEqual(warnings, []);
    });

    it("gives up after a few other failures and says how to online them", async () => {
      const lv = agent(Array(40).fill("Guest agent is not responding (VIR_ERR_AGENT_UNRESPONSIVE)"));
      await onlineInGuest(lv, dom, web, "hv1", 0);
      assert.strictEqual(lv.calls.length, 10);
      assert.strictEqual(warnings.length, 1);
      assert.match(warnings[0], /hv1: domain web has 2 vCPUs, but the guest agent did not bring them online \(Guest agent is not responding.*cpuN\/online/);
    });
  });
});
