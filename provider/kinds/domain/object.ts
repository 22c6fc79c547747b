// A domain on its host: gone, removed by hand, found and proven by its UUID and
// pulumi-kvm's marker, removed with all it has.
import { DomainRef, DomainXmlFlags, isLibvirtError, Libvirt, UndefineFlags, unlessMissing } from "../../libvirt/api";
import type { ImportLookup, JournalledObject } from "../../resources/object-kind";
import { OWNER_NS, parseDomainXml } from "../../xml/domain";
import { stopGracefully } from "./power";
import { removeTpmLog } from "./tpm-log";

/** Everything a domain has beside its definition: its NVRAM, a managed save, snapshot and checkpoint metadata. */
const UNDEFINE_ALL = UndefineFlags.NVRAM | UndefineFlags.MANAGED_SAVE | UndefineFlags.SNAPSHOTS_METADATA | UndefineFlags.CHECKPOINTS_METADATA;

/** Whether the domain carries pulumi-kvm's ownership marker in its metadata. */
export async function hasOwnerMarker(lv: Libvirt, dom: DomainRef): Promise<boolean> {
  try {
    await lv.domainMetadata(dom, OWNER_NS);
    return true;
  } catch (err) {
    if (isLibvirtError(err, "NO_DOMAIN_METADATA")) return false;
    throw err;
  }
}

/**
 * Stops the domain, gracefully within `shutdownMs` (a delete) or at once (`0`: a create
 * undone, whose VM never served anything), and undefines it with all it has. A delete also
 * removes swtpm's log; a create undone keeps it, since its error may point there.
 */
export async function removeDomain(lv: Libvirt, dom: DomainRef, shutdownMs: number, host: string, removeLogs: boolean): Promise<void> {
  const tpm = removeLogs && parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE)).tpm;
  if (shutdownMs > 0) await stopGracefully(lv, dom, shutdownMs, host);
  else {
    await lv.destroyDomain(dom).catch((err) => {
      if (!isLibvirtError(err, "OPERATION_INVALID")) throw err; // not running
    });
  }
  // its TPM state too, asked for explicitly; a libvirt before 8.9 knows no such flag (and removes it anyway)
  await lv.undefineDomain(dom, UNDEFINE_ALL | UndefineFlags.TPM).catch((err) => {
    if (!isLibvirtError(err, "INVALID_ARG")) throw err;
    return lv.undefineDomain(dom, UNDEFINE_ALL);
  });
  if (tpm) await removeTpmLog(lv, dom.name, host);
}

/** How `pulumi import` finds one by its UUID. */
export const domainImport: ImportLookup<DomainRef> = {
  kind: "Domain",
  what: "domain",
  listing: "virsh list --all --uuid --name",
  lookup: (lv, uuid) => unlessMissing(lv.lookupDomainByUuid(uuid), "NO_DOMAIN"),
};

export const domainObject: JournalledObject<DomainRef> = {
  gone: ["NO_DOMAIN"],
  removal: (name) => `virsh destroy ${name}; virsh undefine ${name} --nvram`,
  async find(lv, made) {
    const ref = await lv.lookupDomain(made.name);
    if (!made.id) return undefined;
    return { ref, mine: ref.uuid.toString("hex") === made.id && (await hasOwnerMarker(lv, ref)) };
  },
  // a create undone: its VM never served anything, so it is stopped at once
  remove: (lv, dom, host) => removeDomain(lv, dom, 0, host, false),
};
