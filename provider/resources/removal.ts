// How each kind of host object is removed: one function per kind, called by the
// resource's delete and by rollback alike, each with the checks that keep it from
// taking what something else still uses.
import { KvmError } from "../errors";
import { DomainRef, isLibvirtError, Libvirt, NetworkFilterRef, NetworkRef, PoolRef, UndefineFlags } from "../libvirt/api";
import { OWNER_NS, parseDomainXml } from "../xml/domain";
import { stopGracefully } from "./domain-power";

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
 * undone, whose VM never served anything), and undefines it with all it has.
 */
export async function removeDomain(lv: Libvirt, dom: DomainRef, shutdownMs: number, host: string): Promise<void> {
  if (shutdownMs > 0) await stopGracefully(lv, dom, shutdownMs, host);
  else {
    await lv.destroyDomain(dom).catch((err) => {
      if (!isLibvirtError(err, "OPERATION_INVALID")) throw err; // not running
    });
  }
  await lv.undefineDomain(dom, UNDEFINE_ALL);
}

/** Stops and undefines the pool, refusing while it holds volumes; its directory goes only when empty. */
export async function removePool(lv: Libvirt, pool: PoolRef, host: string): Promise<void> {
  if (await lv.poolIsActive(pool)) {
    const volumes = (await lv.listVolumes(pool)).map((v) => v.name);
    if (volumes.length) {
      throw new KvmError("conflict", `storage pool "${pool.name}" still holds ${volumes.length} volume(s): ${volumes.join(", ")}`, {
        host,
        fix: "Delete those volumes first (remove their resources from the program, or virsh vol-delete them), then destroy the pool",
      });
    }
    await lv.stopPool(pool);
  }
  // libvirt's rmdir refuses a directory with anything in it: that one stays
  await lv.deletePoolStorage(pool).catch((err) => {
    if (!isLibvirtError(err)) throw err;
  });
  await lv.undefinePool(pool);
}

/** The running domains with an interface on the network. */
async function runningDomainsOn(lv: Libvirt, network: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await lv.listDomains()) {
    if (d.id < 0) continue;
    try {
      if (parseDomainXml(await lv.domainXml(d, 0)).interfaces.some((i) => i.network === network)) out.push(d.name);
    } catch (err) {
      if (!isLibvirtError(err, "NO_DOMAIN")) throw err;
    }
  }
  return out;
}

/** Stops and undefines the network, refusing while a running domain uses it. */
export async function removeNetwork(lv: Libvirt, net: NetworkRef, host: string): Promise<void> {
  const users = await runningDomainsOn(lv, net.name);
  if (users.length) {
    throw new KvmError("conflict", `network "${net.name}" is used by running domain ${users.join(", ")}`, {
      host,
      fix: "Delete those domains or move their interfaces to another network first",
    });
  }
  if (await lv.networkIsActive(net)) await lv.stopNetwork(net);
  await lv.undefineNetwork(net);
}

/** Undefines the network filter; libvirt refuses while a VM's NIC uses it, and the error says which fix. */
export async function removeNetworkFilter(lv: Libvirt, filter: NetworkFilterRef, host: string): Promise<void> {
  try {
    await lv.undefineNetworkFilter(filter);
  } catch (err) {
    if (!isLibvirtError(err, "OPERATION_INVALID")) throw err;
    throw new KvmError("conflict", `network filter "${filter.name}" is used by a VM's NIC (${(err as Error).message})`, {
      host,
      fix: "Delete those domains or remove the filter from their NICs first (a NetworkFilter passed as a NIC's filter is deleted after its domains)",
    });
  }
}
