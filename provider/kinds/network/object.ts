// A network on its host: gone, removed by hand, found and proven by its UUID, removed.
import { KvmError } from "../../kvm-error";
import { isLibvirtError, Libvirt, NetworkRef, unlessMissing } from "../../libvirt/api";
import { byUuid, ImportLookup, JournalledObject } from "../../resources/object-kind";
import { parseDomainXml } from "../../xml/domain";

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

/** How `pulumi import` finds one by its UUID. */
export const networkImport: ImportLookup<NetworkRef> = {
  kind: "Network",
  what: "network",
  listing: "virsh net-list --all --uuid",
  lookup: (lv, uuid) => unlessMissing(lv.lookupNetworkByUuid(uuid), "NO_NETWORK"),
};

export const networkObject: JournalledObject<NetworkRef> = {
  gone: ["NO_NETWORK"],
  removal: (name) => `virsh net-destroy ${name}; virsh net-undefine ${name}`,
  find: (lv, made) => byUuid(made, lv.lookupNetwork(made.name)),
  remove: removeNetwork,
};
