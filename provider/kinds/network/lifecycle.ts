// The Network resource: a libvirt virtual network (NAT, isolated, routed, or on a host
// bridge) defined, started and autostarted. DHCP reservations change in place through
// libvirt's network update API, live and in the persistent definition; the rest replaces.
// Delete refuses while a running domain uses the network.
import { namedObjectCheck } from "../../resources/named-check";
import { Claims, declaredDiff } from "../../resources/collisions";
import { isLibvirtError, Libvirt, NetworkRef, unlessMissing } from "../../libvirt/api";
import { KvmError } from "../../kvm-error";
import { dhcpHostXml, DhcpHost, networkXml, parseNetworkXml } from "../../xml/network";
import { differences, refuseAdoption } from "../../resources/adopt";
import { deepEqual } from "../../resources/deep-equal";
import { hostLabel } from "../../resources/host-inputs";
import { processContext, ResourceContext } from "../../resources/context";
import { checkNetworkInputs, NetworkInputs, NetworkOutputs, specOf } from "./inputs";
import { createHostObject, findRecorded, nameClaims } from "../../resources/host-object";
import { ResourceProvider } from "../../resources/types";
import { deleteRecorded, readRecorded, RecordedObject, updateRecorded } from "../../resources/lifecycle";
import { networkImport, removeNetwork } from "./object";
import { importByUuid, present } from "../../resources/import";
import { dhcpRange, networkDeclaration } from "./declaration";

export type { NetworkInputs, NetworkOutputs } from "./inputs";

/** virNetworkUpdateCommand, virNetworkUpdateSection and virNetworkUpdateFlags */
const UpdateCommand = { MODIFY: 1, DELETE: 2, ADD_LAST: 3 } as const;
const SECTION_IP_DHCP_HOST = 4;
const UpdateFlags = { LIVE: 1, CONFIG: 2 } as const;

const hostsOf = (n: NetworkInputs): DhcpHost[] => n.dhcp?.hosts ?? [];

const claimsOf = (n: Pick<NetworkInputs, "host" | "name">): Claims =>
  nameClaims(n.host, n.name, "network", `network "${n.name}"`, (lv) => findNetwork(lv, n.name));

const findNetwork = (lv: Libvirt, name: string) => unlessMissing(lv.lookupNetwork(name), "NO_NETWORK");

async function observe(lv: Libvirt, ref: NetworkRef, inputs: NetworkInputs): Promise<NetworkOutputs> {
  const [xml, active, autostart] = await Promise.all([lv.networkXml(ref), lv.networkIsActive(ref), lv.networkAutostart(ref)]);
  const d = parseNetworkXml(xml);
  return { ...inputs, kvmKind: "Network", uuid: d.uuid, bridge: d.bridge ?? "", active, autostart };
}

/**
 * Brings the network's DHCP reservations from `before` to `after`: removed ones deleted,
 * changed ones modified, new ones added (live too while the network runs, so dnsmasq
 * serves them at once).
 */
async function updateReservations(lv: Libvirt, ref: NetworkRef, before: DhcpHost[], after: DhcpHost[]): Promise<void> {
  const flags = UpdateFlags.CONFIG | ((await lv.networkIsActive(ref)) ? UpdateFlags.LIVE : 0);
  const byMac = (hosts: DhcpHost[]) => new Map(hosts.map((h) => [h.mac.toLowerCase(), h]));
  const was = byMac(before);
  const now = byMac(after);
  for (const [mac, h] of was) if (!now.has(mac)) await lv.updateNetwork(ref, UpdateCommand.DELETE, SECTION_IP_DHCP_HOST, dhcpHostXml(h), flags);
  for (const [mac, h] of now) {
    const old = was.get(mac);
    if (!old) await lv.updateNetwork(ref, UpdateCommand.ADD_LAST, SECTION_IP_DHCP_HOST, dhcpHostXml(h), flags);
    else if (!deepEqual(old, h)) await lv.updateNetwork(ref, UpdateCommand.MODIFY, SECTION_IP_DHCP_HOST, dhcpHostXml(h), flags);
  }
}

/** libvirt's refusal to start a network on a subnet an interface of the host already routes, naming what to change. */
function subnetTaken(err: unknown, n: NetworkInputs): unknown {
  const iface = isLibvirtError(err) ? /Network is already in use by interface (\S+)/.exec(err.message)?.[1] : undefined;
  if (!iface) return err;
  return new KvmError(
    "conflict",
    `network "${n.name}": a subnet of addresses (${(n.addresses ?? []).join(", ")}) is already routed on the host by interface ${iface}`,
    {
      host: hostLabel(n.host),
      property: "addresses",
      fix: `Choose a subnet no interface of the host routes (ip route on the host lists them), or remove what uses ${iface} (a network stopped elsewhere leaves none; a bridge left behind: ip link delete ${iface})`,
      cause: err,
    },
  );
}

/** Starts the network and sets its autostart as asked. */
async function enforce(lv: Libvirt, ref: NetworkRef, n: NetworkInputs): Promise<void> {
  const autostart = n.autostart !== false;
  if (!(await lv.networkIsActive(ref))) await lv.startNetwork(ref).catch((err) => Promise.reject(subnetTaken(err, n)));
  if ((await lv.networkAutostart(ref)) !== autostart) await lv.setNetworkAutostart(ref, autostart);
}

export function createNetworkProvider(ctx: ResourceContext): ResourceProvider<NetworkInputs, NetworkOutputs> {
  return {
    check: namedObjectCheck(ctx, checkNetworkInputs, claimsOf, "network"),

    diff: declaredDiff(networkDeclaration, claimsOf),

    create: (inputs) =>
      createHostObject(ctx.pool, inputs, {
        kind: "network",
        what: `network "${inputs.name}"`,
        find: (lv) => findNetwork(lv, inputs.name),
        async adopt(lv, ref) {
          const d = parseNetworkXml(await lv.networkXml(ref));
          const range = d.dhcp && { start: d.dhcp.start, end: d.dhcp.end };
          const diffs = differences(
            { mode: d.mode, bridge: d.bridge, addresses: d.addresses, domain: d.domain, dhcp: range },
            { mode: inputs.mode, bridge: inputs.bridge, addresses: inputs.addresses ?? [], domain: inputs.domain, dhcp: dhcpRange(inputs) },
            ["mode", "bridge", "addresses", "domain", "dhcp"],
          );
          if (!inputs.dhcp && range) diffs.push({ property: "dhcp", onHost: range, inProgram: undefined });
          if (diffs.length) throw refuseAdoption(hostLabel(inputs.host), `network "${inputs.name}"`, diffs);
          await updateReservations(lv, ref, d.dhcp?.hosts ?? [], hostsOf(inputs));
        },
        define: (lv, uuid) => lv.defineNetwork(networkXml({ ...specOf(inputs), uuid })),
        async bringToState(lv, ref) {
          await enforce(lv, ref, inputs);
          return observe(lv, ref, inputs);
        },
      }),

    read: (id, props) =>
      readRecorded(ctx.pool, recordedNetwork(props, id), id, props, async (lv, ref) => {
        // reservations made outside Pulumi show up as a diff on the next preview
        const d = parseNetworkXml(await lv.networkXml(ref));
        const dhcp = props.dhcp && d.dhcp ? { ...props.dhcp, hosts: d.dhcp.hosts } : props.dhcp;
        return observe(lv, ref, { ...props, dhcp });
      }),

    update: (id, olds, news) =>
      updateRecorded(ctx.pool, recordedNetwork({ ...olds, host: news.host }, id), async (lv, ref) => {
        await updateReservations(lv, ref, hostsOf(olds), hostsOf(news));
        await enforce(lv, ref, news);
        return { outs: await observe(lv, ref, news) };
      }),

    delete: (id, props) => deleteRecorded(ctx.pool, recordedNetwork(props, id), (lv, ref) => removeNetwork(lv, ref, hostLabel(props.host))),

    importObject: importByUuid(ctx.pool, networkImport, async (lv, ref, host) => {
      const d = parseNetworkXml(await lv.networkXml(ref));
      const inputs = present<NetworkInputs>({
        host,
        name: d.name,
        mode: d.mode,
        // a bridge libvirt named (virbrN) is an output; only a host bridge is asked for
        bridge: d.mode === "bridge" ? d.bridge : undefined,
        addresses: d.addresses.length ? d.addresses : undefined,
        dhcp: d.dhcp && (d.dhcp.hosts.length ? d.dhcp : { start: d.dhcp.start, end: d.dhcp.end }),
        domain: d.domain,
        autostart: await lv.networkAutostart(ref),
      });
      const outs = await observe(lv, ref, inputs);
      return { id: outs.uuid, inputs, outs };
    }),
  };
}

/** The network of the record: another network under the name is not this resource's. */
const recordedNetwork = (n: Pick<NetworkInputs, "host" | "name">, uuid: string): RecordedObject<NetworkRef> => ({
  host: n.host,
  what: `network ${n.name}`,
  find: (lv) => findRecorded(findNetwork(lv, n.name), uuid),
});

export const networkProvider = createNetworkProvider(processContext);
