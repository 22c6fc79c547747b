// check, in preview: each of a Domain's xmlPatches is well formed, and applies to the XML the
// provider would build from these inputs (placeholder paths for the disks it cannot resolve
// yet), so a patch that selects nothing or touches what pulumi-kvm manages fails here.
import { classify } from "../../errors";
import { KvmError } from "../../kvm-error";
import { DomainRef, isLibvirtError, Libvirt } from "../../libvirt/api";
import { Failures, reporter } from "../../resources/input-checks";
import { isUnknown } from "../../resources/unknown";
import { DiskSpec, domainXml } from "../../xml/domain";
import { PatchError } from "../../xml/domain-patches";
import { specOf } from "./spec";
import type { DomainInputs } from "./types";

const FIELDS = ["add", "set", "remove"] as const;

export function checkXmlPatches(d: DomainInputs, failures: Failures): void {
  const patches = d.xmlPatches;
  if (patches === undefined || isUnknown(patches)) return;
  const bad = reporter(failures);
  if (!Array.isArray(patches)) return bad("xmlPatches", '[{ xpath: "/domain/devices", add: "<watchdog model=\'i6300esb\'/>" }]: a list of patches');
  const before = failures.length;
  patches.forEach((p, i) => {
    if (isUnknown(p)) return;
    if (!p || typeof p !== "object") return bad(`xmlPatches[${i}]`, "must be { xpath, add? | set? | remove? }");
    if (!isUnknown(p.xpath) && (typeof p.xpath !== "string" || !p.xpath)) bad(`xmlPatches[${i}].xpath`, 'is required: an XPath such as "/domain/devices"');
    const given = FIELDS.filter((f) => p[f] !== undefined && p[f] !== false);
    if (given.length !== 1) bad(`xmlPatches[${i}]`, `give exactly one of add, set and remove (got ${given.join(", ") || "none"})`);
    for (const f of ["add", "set"] as const)
      if (p[f] !== undefined && !isUnknown(p[f]) && typeof p[f] !== "string") bad(`xmlPatches[${i}].${f}`, "must be a string");
    if (p.remove !== undefined && !isUnknown(p.remove) && typeof p.remove !== "boolean") bad(`xmlPatches[${i}].remove`, "must be true");
  });
  if (failures.length > before || !appliesNow(d)) return;
  try {
    domainXml(specOf(d, placeholderDisks(d), d.cloudInit ? "/preview/seed.iso" : undefined, "preview", [], "00000000-0000-0000-0000-000000000000"));
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    failures.push({ property: err.property ?? "xmlPatches", reason: err.message });
  }
}

/** Whether what the XML is built from is known (a preview may not know a disk or a NIC yet). */
const appliesNow = (d: DomainInputs) => ![d.xmlPatches, d.disks, d.networkInterfaces, d.tpm, d.machine, d.firmware, d.cloudInit].some(isUnknown);

/** The disks as the XML would have them, with paths not resolved yet. */
const placeholderDisks = (d: DomainInputs): DiskSpec[] =>
  (Array.isArray(d.disks) ? d.disks : []).map((disk, i) => ({
    ...disk,
    path: `/preview/disk${i}`,
    format: disk.format ?? "raw",
    device: disk.device ?? "disk",
    bus: disk.bus ?? "virtio",
  }));

/** What libvirt answers a definition it refuses: with patches applied, they are the likely cause, and named so. */
const REFUSALS = ["XML_ERROR", "XML_DETAIL", "CONFIG_UNSUPPORTED", "INVALID_ARG"] as const;

/** Defines the domain from `xml`; libvirt's refusal of a patched definition names xmlPatches beside libvirt's words. */
export async function definePatched(lv: Libvirt, d: DomainInputs, xml: string): Promise<DomainRef> {
  try {
    return await lv.defineDomain(xml);
  } catch (err) {
    if (!d.xmlPatches?.length || !isLibvirtError(err, ...REFUSALS)) throw err;
    throw new KvmError("permanent", `libvirt refused the domain XML with its patches applied: ${classify(err).message}`, {
      property: "xmlPatches",
      fix: "Correct the patches (libvirt's domain XML: https://libvirt.org/formatdomain.html) or remove them",
      cause: err,
    });
  }
}
