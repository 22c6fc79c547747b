// Disks and NICs added to or removed from a running domain: which changes of `disks` and
// `networkInterfaces` can be attached and detached live (the rest needs a restart), and
// doing it on the running VM and in its definition alike.
import { envSecondsMs } from "../../units";
import * as crypto from "crypto";
import { KvmError } from "../../errors";
import { DomainRef, DomainXmlFlags, Impact, Libvirt } from "../../libvirt/api";
import { diskDeviceXml, DiskSpec, interfaceDeviceXml, InterfaceSpec, parseDomainXml, targetNames } from "../../xml/domain";
import { deepEqual } from "../../resources/deep-equal";
import { sameMachine } from "../../resources/host-inputs";
import type { DiskInput, DomainInputs, InterfaceInput } from "./types";
import { findPool, findVolume } from "../../resources/storage";

/** How long a guest has to release a detached device before the detach fails: PULUMI_KVM_DETACH_TIMEOUT seconds, default 30. */
function detachWaitMs(): number {
  return envSecondsMs("PULUMI_KVM_DETACH_TIMEOUT", 30);
}

/** A disk's identity: its volume in its pool. Its format and base only confirm the volume's. */
const diskKey = (d: DiskInput) => `${d.pool ?? "default"}/${d.volume}`;
const comparable = ({ format: _format, backing: _backing, ...d }: DiskInput) => d;
/** A NIC's identity: where it is plugged in, and its MAC when pinned. */
const nicKey = (n: InterfaceInput) => JSON.stringify([n.network ?? "", n.bridge ?? "", n.direct?.dev ?? "", n.mac ?? ""]);

export interface DeviceChanges {
  attachDisks: DiskInput[];
  detachDisks: DiskInput[];
  attachNics: InterfaceInput[];
  detachNics: InterfaceInput[];
}

/**
 * The attach and detach that turn `before` into `after`, when they can be done live: the
 * disks and NICs that stay are unchanged, the boot disk stays, and an added disk is a
 * virtio disk with no boot order of its own. undefined: only a redefinition and a restart can.
 */
function listChanges<T>(before: T[], after: T[], key: (x: T) => string, same: (a: T, b: T) => boolean) {
  const was = new Map(before.map((x) => [key(x), x]));
  const now = new Map(after.map((x) => [key(x), x]));
  if (was.size !== before.length || now.size !== after.length) return undefined; // the same one twice: by position only
  const kept = after.filter((x) => was.has(key(x)));
  if (kept.some((x) => !same(was.get(key(x))!, x))) return undefined;
  // the ones that stay keep their order (target names follow it)
  if (!deepEqual(kept.map(key), before.filter((x) => now.has(key(x))).map(key))) return undefined;
  return { added: after.filter((x) => !was.has(key(x))), removed: before.filter((x) => !now.has(key(x))) };
}

export function deviceChanges(olds: DomainInputs, news: DomainInputs): DeviceChanges | undefined {
  const disks = listChanges(olds.disks ?? [], news.disks ?? [], diskKey, (a, b) => deepEqual(comparable(a), comparable(b)));
  const nics = listChanges(olds.networkInterfaces ?? [], news.networkInterfaces ?? [], nicKey, deepEqual);
  if (!disks || !nics) return undefined;
  const boot = (d: DomainInputs) => d.disks?.[0] && diskKey(d.disks[0]);
  if (boot(olds) !== boot(news)) return undefined;
  if (disks.added.some((d) => (d.device ?? "disk") !== "disk" || (d.bus ?? "virtio") !== "virtio" || d.bootOrder !== undefined)) return undefined;
  return { attachDisks: disks.added, detachDisks: disks.removed, attachNics: nics.added, detachNics: nics.removed };
}

/** Whether a change of disks or NICs needs a restart (the declaration's escalation). */
export const devicesNeedRestart = (olds: DomainInputs, news: DomainInputs) =>
  // a move takes the same disks and NICs along (made anew on the other host): nothing to restart for
  sameMachine(olds.host, news.host) && deviceChanges(olds, news) === undefined;

/** A MAC for a NIC attached live, chosen here so the running VM and its definition get the same one. */
const newMac = () => `52:54:00:${[...crypto.randomBytes(3)].map((b) => b.toString(16).padStart(2, "0")).join(":")}`;

/**
 * Attaches and detaches on the running VM and in its definition (only the definition of a
 * stopped one). A detach waits for the guest to release the device; when it does not within
 * PULUMI_KVM_DETACH_TIMEOUT, the update fails with the definition unchanged.
 */
export async function applyDeviceChanges(
  lv: Libvirt,
  dom: DomainRef,
  changes: DeviceChanges,
  resolved: DiskSpec[],
  news: DomainInputs,
  active: boolean,
  host: string,
): Promise<void> {
  const impact = active ? Impact.LIVE | Impact.CONFIG : Impact.CONFIG;
  // a device may be in one of them only (a detach the guest acknowledged after an update gave up waiting)
  const defined = parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE));
  const running = active ? parseDomainXml(await lv.domainXml(dom, 0)) : defined;
  const both = { disks: [...running.disks, ...defined.disks], interfaces: [...running.interfaces, ...defined.interfaces] };
  for (const d of changes.detachDisks) {
    const pool = await findPool(lv, d.pool ?? "default");
    const vol = pool && (await findVolume(lv, pool, d.volume));
    const path = vol && (await lv.volumePath(vol));
    const onHost = both.disks.find((x) => x.path === path);
    if (!onHost) continue; // detached already
    const xml = diskDeviceXml({ path: onHost.path, format: onHost.format ?? "raw", device: "disk", bus: onHost.bus as DiskSpec["bus"] }, onHost.target);
    await detach(lv, dom, xml, active, host, `disk ${d.volume} (${onHost.target})`, news.name, (x) => x.disks.some((k) => k.target === onHost.target));
  }
  // a removed NIC without a pinned MAC is the one on its network whose MAC no remaining NIC pins
  const pinned = new Set((news.networkInterfaces ?? []).map((n) => n.mac?.toLowerCase()).filter(Boolean));
  for (const n of changes.detachNics) {
    const onHost = both.interfaces.find((i) => pluggedInto(i, n) && (n.mac ? i.mac.toLowerCase() === n.mac.toLowerCase() : !pinned.has(i.mac.toLowerCase())));
    if (!onHost) continue;
    const xml = interfaceDeviceXml({
      network: onHost.network,
      bridge: onHost.bridge,
      direct: onHost.direct ? { dev: onHost.direct, mode: "bridge" } : undefined,
      mac: onHost.mac,
      model: onHost.model ?? "virtio",
    });
    await detach(lv, dom, xml, active, host, `interface ${onHost.mac}`, news.name, (x) => x.interfaces.some((i) => i.mac === onHost.mac));
  }
  const used = both.disks.map((x) => x.target);
  for (const d of changes.attachDisks) {
    const spec = resolved[news.disks.findIndex((x) => diskKey(x) === diskKey(d))];
    const target = freeTarget(used, spec.bus);
    used.push(target);
    await lv.attachDevice(dom, diskDeviceXml({ ...spec, bootOrder: undefined }, target), impact);
  }
  for (const n of changes.attachNics) {
    const nic: InterfaceSpec = {
      network: n.network,
      bridge: n.bridge,
      direct: n.direct && { dev: n.direct.dev, mode: n.direct.mode ?? "bridge" },
      model: n.model ?? "virtio",
      mac: n.mac ?? newMac(),
      filter: n.filter,
    };
    await lv.attachDevice(dom, interfaceDeviceXml(nic), impact);
  }
}

/** Whether a NIC of the running VM is plugged where `n` asks (a running network NIC also names its network's bridge). */
function pluggedInto(i: { network?: string; bridge?: string; direct?: string }, n: InterfaceInput): boolean {
  if (n.direct) return i.direct === n.direct.dev;
  if (n.bridge) return i.network === undefined && i.bridge === n.bridge;
  return i.network === (n.network ?? "default");
}

/** The first target name of the bus's prefix that no device has (vdb after vda). */
function freeTarget(used: string[], bus: DiskSpec["bus"]): string {
  const names = targetNames(Array.from({ length: used.length + 1 }, () => ({ bus })));
  return names.find((n) => !used.includes(n))!;
}

/**
 * Detaches live (when the running VM has the device) and waits for the guest to let go, then
 * from the definition (when it has it): the definition is untouched when the guest does not.
 */
async function detach(
  lv: Libvirt,
  dom: DomainRef,
  xml: string,
  active: boolean,
  host: string,
  what: string,
  name: string,
  present: (d: ReturnType<typeof parseDomainXml>) => boolean,
): Promise<void> {
  const runningHas = async () => present(parseDomainXml(await lv.domainXml(dom, 0)));
  if (active && (await runningHas())) {
    await lv.detachDevice(dom, xml, Impact.LIVE);
    const waitMs = detachWaitMs();
    const deadline = Date.now() + waitMs;
    while (await runningHas()) {
      if (Date.now() > deadline) {
        throw new KvmError(
          "timeout",
          `domain ${name}: the guest did not release ${what} within ${waitMs / 1000} s (PULUMI_KVM_DETACH_TIMEOUT); its definition is unchanged`,
          {
            host,
            fix: "The guest must support hot-unplug (ACPI; a Linux kernel does) and be running, not paused; stop using the device in the guest, or set running: false for the change, then pulumi up again; a slow guest (software emulation) may need a longer PULUMI_KVM_DETACH_TIMEOUT",
          },
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  if (present(parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE)))) await lv.detachDevice(dom, xml, Impact.CONFIG);
}
