// From a Domain's inputs to libvirt's terms and back: the disks resolved to pool
// paths, the MACs an interface keeps across a redefinition, the DomainSpec the XML
// builder takes, and the outputs composed from what libvirt reports.
import { KvmError } from "../../errors";
import { DomainRef, Libvirt } from "../../libvirt/api";
import { DiskSpec, DomainSpec, InterfaceSpec, ParsedDomain } from "../../xml/domain";
import { parseVolumeXml } from "../../xml/volume";
import { DomainInputs, DomainOutputs, InterfaceInput, SeedRecord } from "./inputs";
import { InterfaceAddresses } from "./ip";
import { findPool, findVolume, notAsRecorded } from "../../resources/storage";
import { passedAsRecorded } from "../volume/identity";
import { uuidText } from "../../uuid";

type ParsedDisk = ParsedDomain["disks"][number];

const STATE_NAMES = ["nostate", "running", "blocked", "paused", "shutdown", "shutoff", "crashed", "pmsuspended"];

export function stateName(state: number): string {
  return STATE_NAMES[state] ?? String(state);
}

/**
 * The disks of `d` in libvirt's terms. A disk's format is what its Volume or Image
 * recorded or the program declared (check requires it), and an overlay's base what its
 * Volume recorded, else what our current definition spells out for that file (`known`,
 * older records). Nothing comes from libvirt's reading of the file: a guest can write
 * any header into a raw disk, and libvirt re-probes it on every look.
 */
export async function resolveDisks(lv: Libvirt, d: DomainInputs, host: string, known = new Map<string, ParsedDisk>()): Promise<DiskSpec[]> {
  return Promise.all(
    d.disks.map(async (disk, i) => {
      const property = `disks[${i}]`;
      const pool = await findPool(lv, disk.pool ?? "default");
      const vol = pool && (await findVolume(lv, pool, disk.volume));
      if (!vol) {
        throw new KvmError("not-found", `volume "${disk.volume}" is not in pool "${disk.pool}"`, {
          host,
          property: `${property}.volume`,
          fix: "Create it (a Volume resource) or fix the name and pool",
        });
      }
      if (!(await passedAsRecorded(lv, vol, disk.identity))) throw notAsRecorded(host, `${property}.volume`, `volume "${disk.volume}"`, "Volume");
      const path = await lv.volumePath(vol);
      const before = known.get(path);
      const format = disk.format ?? before?.format;
      if (format !== "qcow2" && format !== "raw") {
        throw new KvmError("permanent", `${property}.format is not known for volume "${disk.volume}"`, {
          host,
          property: `${property}.format`,
          fix: 'Say "raw" or "qcow2", or pass the Volume resource',
        });
      }
      let backing = format === "qcow2" ? (disk.backing ?? (before?.format === "qcow2" ? before.backing : undefined)) : undefined;
      if (format === "qcow2" && !backing) {
        // only to refuse: an overlay opened without its base shows the guest holes where its data is
        const { backingPath } = parseVolumeXml(await lv.volumeXml(vol));
        if (backingPath) {
          throw new KvmError(
            "permanent",
            `volume "${disk.volume}" (${property}) is a qcow2 overlay, and a disk given by name is attached without a backing chain (pulumi-kvm never takes one from the file)`,
            {
              host,
              property: `${property}.volume`,
              fix: "Pass the kvm.Volume itself (or adopt the volume as a kvm.Volume with baseImage), so its base is recorded",
            },
          );
        }
        backing = undefined;
      }
      const { bootOrder, cache, discard, serial, readonly } = disk;
      return { path, format, device: disk.device ?? "disk", bus: disk.bus ?? "virtio", backing, bootOrder, cache, discard, serial, readonly };
    }),
  );
}

type Nic = { mac: string; network?: string; bridge?: string; direct?: string };

/**
 * The MAC each wanted interface gets on a redefinition: a pinned one as given, else
 * the MAC of a current interface on the same network or bridge (its identity, not
 * its list position: removing NIC 0 moves no address), else a new one from libvirt.
 */
export function keptMacs(current: Nic[], wanted: InterfaceInput[]): (string | undefined)[] {
  const pinned = new Set(wanted.map((w) => w.mac?.toLowerCase()).filter(Boolean));
  const free = current.filter((c) => !pinned.has(c.mac.toLowerCase()));
  return wanted.map((w) => {
    if (w.mac) return w.mac.toLowerCase();
    const i = free.findIndex(
      (c) => (c.network ?? "") === (w.network ?? "") && (c.bridge ?? "") === (w.bridge ?? "") && (c.direct ?? "") === (w.direct?.dev ?? ""),
    );
    return i < 0 ? undefined : free.splice(i, 1)[0].mac.toLowerCase();
  });
}

export function specOf(
  d: DomainInputs,
  disks: DiskSpec[],
  seedPath: string | undefined,
  owner: string,
  macs: (string | undefined)[] = [],
  uuid?: string,
): DomainSpec {
  return {
    name: d.name,
    uuid,
    type: d.type ?? "kvm",
    vcpu: d.vcpu ?? 1,
    memoryMiB: Number(d.memory ?? 512),
    maxVcpu: d.maxVcpu ?? d.vcpu ?? 1,
    maxMemoryMiB: Number(d.maxMemory ?? d.memory ?? 512),
    firmware: d.firmware ?? "bios",
    secureBoot: !!d.secureBoot,
    machine: d.machine,
    xmlPatches: d.xmlPatches,
    tpm: d.tpm && { version: d.tpm.version ?? "2.0", model: d.tpm.model ?? (d.tpm.version === "1.2" ? "tpm-tis" : "tpm-crb") },
    cpuMode: d.cpuMode,
    disks,
    seedPath,
    interfaces: (d.networkInterfaces ?? []).map((n, i): InterfaceSpec => ({
      network: n.network,
      bridge: n.bridge,
      direct: n.direct && { dev: n.direct.dev, mode: n.direct.mode ?? "bridge" },
      model: n.model ?? "virtio",
      mac: n.mac ?? macs[i],
      filter: n.filter,
    })),
    kernel: d.kernel,
    initrd: d.initrd,
    cmdline: d.cmdline,
    qemuAgent: !!d.qemuAgent,
    graphics: d.graphics ?? "none",
    owner,
  };
}

export interface Observed {
  parsed: ParsedDomain;
  state: number;
  active: boolean;
  autostart: boolean;
  addresses: InterfaceAddresses[];
}

/** The outputs: the inputs as checked, overlaid with what libvirt reports now. */
export function composeOutputs(d: DomainInputs, seen: Observed, recorded: SeedRecord): DomainOutputs {
  const interfaces = seen.parsed.interfaces.map((i) => ({
    mac: i.mac,
    network: i.network ?? (i.bridge ? `bridge:${i.bridge}` : i.direct ? `direct:${i.direct}` : ""),
    addresses: seen.addresses.find((a) => a.mac === i.mac.toLowerCase())?.addresses ?? [],
  }));
  const ipAddress = interfaces.flatMap((i) => i.addresses)[0];
  return {
    ...d,
    ...recorded,
    kvmKind: "Domain",
    uuid: seen.parsed.uuid,
    name: seen.parsed.name,
    state: stateName(seen.state),
    running: seen.active,
    autostart: seen.autostart,
    vcpu: seen.parsed.vcpu,
    memory: seen.parsed.memoryMiB,
    maxVcpu: seen.parsed.maxVcpu,
    maxMemory: seen.parsed.maxMemoryMiB,
    interfaces,
    ...(ipAddress ? { ipAddress } : {}),
  };
}

/** What Pulumi records of a VM that exists but could not be observed (the link died). */
export function unobservedOutputs(d: DomainInputs, dom: DomainRef, recorded: SeedRecord): DomainOutputs {
  return { ...d, ...recorded, kvmKind: "Domain", uuid: uuidText(dom.uuid), name: dom.name, state: "unknown", interfaces: [] };
}
