// A network filter on its host: gone, removed by hand, found and proven by its UUID, removed.
import { KvmError } from "../../kvm-error";
import { isLibvirtError, Libvirt, unlessMissing } from "../../libvirt/api";
import { byUuid, JournalledObject } from "../../resources/object-kind";

/** A network filter as libvirt names it. */
export type NetworkFilterRef = Awaited<ReturnType<Libvirt["lookupNetworkFilter"]>>;

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

export const networkFilterObject: JournalledObject<NetworkFilterRef> = {
  gone: ["NO_NWFILTER"],
  removal: (name) => `virsh nwfilter-undefine ${name}`,
  named: {
    type: "NetworkFilter",
    what: "network filter",
    exists: async (lv, name) => !!(await unlessMissing(lv.lookupNetworkFilter(name), "NO_NWFILTER")),
    define: "virsh nwfilter-define",
  },
  find: (lv, made) => byUuid(made, lv.lookupNetworkFilter(made.name)),
  remove: removeNetworkFilter,
};
