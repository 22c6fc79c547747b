// `pulumi import` of a domain made outside Pulumi, by its UUID: the inputs are read from its
// persistent definition (what the admin wrote: disks with their formats, NICs, firmware,
// CPUs and memory) and its state (running, autostart). It carries no ownership marker;
// the record says it was imported, and refresh, update and delete prove it by its UUID.
// Devices the inputs do not describe stay as they are until a change that redefines the
// domain (a restart-class one), which writes the program's definition (docs/import.md).
import { KvmError } from "../../errors";
import { DomainXmlFlags, Libvirt, unlessMissing } from "../../libvirt/api";
import type { HostConfig } from "../../ssh/host";
import { at, children, node, parseXml } from "../../xml/dom";
import { parseDomainXml } from "../../xml/domain";
import { Failures } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { checkInputs } from "./inputs";
import type { DiskInput, DomainInputs, DomainOutputs, InterfaceInput } from "./inputs";
import { observe } from "./observe";
import { importedObject, present, withoutDefaults } from "../../resources/import";
import { domainDeclaration } from "./declaration";
import { domainImport } from "./object";

/** The definition's disks as inputs: each a volume of a pool, by name, with the format the definition declares. */
async function disksOf(lv: Libvirt, disks: ReturnType<typeof parseDomainXml>["disks"], host: string, what: string): Promise<DiskInput[]> {
  const out: DiskInput[] = [];
  for (const disk of disks) {
    const refuse = (why: string, fix: string) => new KvmError("permanent", `cannot import ${what}: its disk ${disk.target} ${why}`, { host, fix });
    if (!disk.path) throw refuse("is not a file", "Only disks that are volumes of a pool can be imported; detach it first (virsh detach-disk)");
    const vol = await unlessMissing(lv.lookupVolumeByKey(disk.path), "NO_STORAGE_VOL");
    if (!vol)
      throw refuse(
        `(${disk.path}) is not a volume of any pool`,
        "Define a dir pool over its directory (virsh pool-define-as) or move it into one, then import",
      );
    if (disk.format !== "qcow2" && disk.format !== "raw") {
      throw refuse(`declares format ${disk.format ?? "none"}`, "Declare its format in the definition (virsh edit: <driver type='qcow2'/> or 'raw')");
    }
    const device = disk.device === "cdrom" ? "cdrom" : "disk";
    const bus = (disk.bus || undefined) as DiskInput["bus"];
    const defaultBus = device === "cdrom" ? "sata" : "virtio";
    out.push(
      present<DiskInput>({
        volume: vol.name,
        pool: vol.pool,
        format: disk.format,
        device: device === "disk" ? undefined : device,
        bus: bus === defaultBus ? undefined : bus,
      }),
    );
  }
  return out;
}

/** The definition's NICs as inputs, with their MACs (kept, so leases and guests see the same NICs). */
function interfacesOf(interfaces: ReturnType<typeof parseDomainXml>["interfaces"], direct: (string | undefined)[]): InterfaceInput[] {
  return interfaces.map((i, n) =>
    present<InterfaceInput>({
      network: i.network,
      bridge: i.bridge,
      direct: i.direct ? present({ dev: i.direct, mode: direct[n] as NonNullable<InterfaceInput["direct"]>["mode"] }) : undefined,
      mac: i.mac,
      model: i.model === "virtio" ? undefined : i.model,
      filter: i.filter,
    }),
  );
}

export async function importDomain(lv: Libvirt, id: string, host: HostConfig): Promise<{ id: string; inputs: DomainInputs; outs: DomainOutputs }> {
  const label = hostLabel(host);
  const dom = await importedObject(lv, id, label, domainImport);
  const xml = await lv.domainXml(dom, DomainXmlFlags.INACTIVE);
  const d = parseDomainXml(xml);
  const root = parseXml(xml);
  const devices = node(root, "devices");
  const what = `domain ${d.name}`;
  if (d.type !== "kvm" && d.type !== "qemu") {
    throw new KvmError("permanent", `cannot import ${what}: it is a "${d.type}" domain; pulumi-kvm manages kvm and qemu domains`, {
      host: label,
      fix: "Leave it out",
    });
  }
  const graphics = at(devices, "graphics@type");
  const agent = children(devices, "channel").some((c) => at(c, "target@name") === "org.qemu.guest_agent.0");
  const { state } = await lv.domainState(dom);
  const inputs = present<DomainInputs>({
    host,
    name: d.name,
    type: d.type,
    vcpu: d.vcpu,
    maxVcpu: d.maxVcpu !== d.vcpu ? d.maxVcpu : undefined,
    memory: d.memoryMiB,
    maxMemory: d.maxMemoryMiB !== d.memoryMiB ? d.maxMemoryMiB : undefined,
    firmware: d.firmware,
    secureBoot: d.secureBoot || undefined,
    tpm: d.tpm,
    disks: await disksOf(lv, d.disks, label, what),
    networkInterfaces: d.interfaces.length
      ? interfacesOf(
          d.interfaces,
          children(devices, "interface").map((i) => at(i, "source@mode")),
        )
      : undefined,
    kernel: d.kernel,
    initrd: at(root, "os/initrd"),
    cmdline: at(root, "os/cmdline"),
    running: state === 1 || state === 3,
    autostart: await lv.domainAutostart(dom),
    qemuAgent: agent || undefined,
    graphics: graphics === "vnc" || graphics === "spice" ? graphics : undefined,
  });
  // recorded as check makes a program's inputs (defaults, disks and NICs filled in), so the first diff compares like with like
  const failures: Failures = [];
  const checked = checkInputs(inputs, failures);
  if (failures.length) {
    throw new KvmError("permanent", `cannot import ${what}: ${failures.map((f) => f.reason).join("; ")}`, {
      host: label,
      fix: "Change the definition (virsh edit) so pulumi-kvm can describe it, or leave it out",
    });
  }
  const outs = await observe(lv, dom, checked, {});
  // the program states what check made of them (disks and NICs in full), so a refresh's diff
  // against these recorded inputs compares like with like
  const { resourceName: _own, ...stated } = withoutDefaults(domainDeclaration.properties, checked);
  return { id: outs.uuid, inputs: stated, outs: { ...outs, imported: true } };
}
