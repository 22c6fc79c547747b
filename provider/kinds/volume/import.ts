// `pulumi import` of a volume made outside Pulumi, by its key (a dir pool's: its path). Its
// format and base come from the definition of a domain that uses it, where one does (what
// the admin wrote; for a qcow2 the header is qemu's); else libvirt's view of the file is
// taken only when its header names no data file and no base outside its pool. Either way
// the program Pulumi writes from these inputs states them, for the user to confirm.
import * as path from "path";
import { KvmError } from "../../errors";
import { isQcow2, qcow2ExternalFiles } from "../../image/header";
import { DomainXmlFlags, Libvirt, unlessMissing, VolumeRef } from "../../libvirt/api";
import type { HostConfig } from "../../ssh/host";
import { parseDomainXml } from "../../xml/domain";
import { parsePoolXml } from "../../xml/pool";
import { VolumeFormat } from "../../xml/volume";
import { sizeInput } from "../../units";
import { hostLabel } from "../../resources/host-inputs";
import { notOnHost, present } from "../../resources/import";
import { describeVolume, findVolume } from "../../resources/storage";
import type { VolumeInputs, VolumeOutputs } from "./declaration";
import { volumeOutputs } from "./declaration";
import { sizeOf } from "./growth";
import { headOf } from "./identity";

const LISTING = "virsh vol-list --pool POOL --details (the path is the key)";

/** The formats the domains that use `file` declare for it, by domain. */
async function declaredFormats(lv: Libvirt, file: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const dom of await lv.listDomains()) {
    const d = parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE));
    for (const disk of d.disks) if (disk.path === file && disk.format) out.set(d.name, disk.format);
  }
  return out;
}

function refuse(host: string, what: string, why: string, fix: string): KvmError {
  return new KvmError("permanent", `cannot import ${what}: ${why}`, { host, fix });
}

/** The format of the volume, from the domains that use it or, with none, from its own header. */
async function formatOf(lv: Libvirt, vol: VolumeRef, file: string, libvirtFormat: string | undefined, host: string, what: string): Promise<VolumeFormat> {
  const declared = await declaredFormats(lv, file);
  const formats = [...new Set(declared.values())];
  if (formats.length > 1) {
    const list = [...declared].map(([dom, f]) => `${dom} as ${f}`).join(", ");
    throw refuse(host, what, `the domains that use it disagree on its format (${list})`, "Make the definitions agree (virsh edit), then import it");
  }
  const format = formats[0] ?? libvirtFormat;
  if (format !== "qcow2" && format !== "raw") {
    throw refuse(
      host,
      what,
      `it is ${format ?? "of no format libvirt knows"}; pulumi-kvm manages qcow2 and raw volumes`,
      "Convert it with qemu-img convert -O qcow2, or leave it out",
    );
  }
  if (!formats.length && format === "qcow2") {
    // no domain vouches for it: only a header that points at nothing outside the pool is taken
    const head = await headOf(lv, vol);
    if (!isQcow2(head)) throw refuse(host, what, "libvirt reads it as qcow2 but its header is not one", "Leave it out of the import");
    if (qcow2ExternalFiles(head).dataFile) {
      throw refuse(
        host,
        what,
        "its qcow2 header names an external data file, which libvirt would open on the host",
        "Convert it to a self-contained image (qemu-img convert -O qcow2), or leave it out",
      );
    }
  }
  return format;
}

export async function importVolume(lv: Libvirt, key: string, host: HostConfig): Promise<{ id: string; inputs: VolumeInputs; outs: VolumeOutputs }> {
  const label = hostLabel(host);
  const vol = await unlessMissing(lv.lookupVolumeByKey(key), "NO_STORAGE_VOL");
  if (!vol) throw notOnHost(label, `volume with key ${key}`, LISTING);
  const what = `volume ${vol.pool}/${vol.name}`;
  const d = await describeVolume(lv, vol);
  const format = await formatOf(lv, vol, d.path, d.format, label, what);
  let base: { name: string; format: VolumeFormat; path: string } | undefined;
  if (format === "qcow2" && d.backingPath) {
    const poolDir = parsePoolXml(await lv.poolXml(await lv.lookupPool(vol.pool))).path;
    const baseVol = path.dirname(d.backingPath) === poolDir ? await findVolume(lv, await lv.lookupPool(vol.pool), path.basename(d.backingPath)) : undefined;
    if (!baseVol) {
      throw refuse(
        label,
        what,
        `its base ${d.backingPath} is not a volume of pool ${vol.pool}`,
        "Import volumes whose base is in the same pool (or flatten it: qemu-img convert -O qcow2)",
      );
    }
    if (d.backingFormat !== "qcow2" && d.backingFormat !== "raw") {
      throw refuse(label, what, `its header does not say its base's format`, `Record it: qemu-img rebase -u -F qcow2 -b ${d.backingPath} ${d.path}`);
    }
    base = { name: baseVol.name, format: d.backingFormat, path: d.backingPath };
  }
  const capacityBytes = sizeOf(d, format, label);
  const inputs = present<VolumeInputs>({
    host,
    pool: vol.pool,
    name: vol.name,
    format,
    capacity: sizeInput(capacityBytes),
    baseImage: base?.name,
    sourceFormat: base?.format,
  });
  // made by hand, it carries no marker: known by its shape, as an adopted volume (docs/import.md)
  // recorded as check makes the program's inputs: the capacity in bytes
  const outs = volumeOutputs(
    { ...inputs, capacity: capacityBytes },
    { path: d.path, key: d.key ?? vol.key, capacityBytes },
    format,
    base && { path: base.path, format: base.format },
    {},
  );
  return { id: outs.key, inputs, outs };
}
