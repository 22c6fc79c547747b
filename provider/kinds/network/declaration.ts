// The Network's properties, declared once (properties.ts): DHCP reservations and
// autostart change in place, the rest of the definition replaces.
import { deepEqual } from "../../resources/deep-equal";
import type { HostConfig } from "../../ssh/host";
import type { DhcpHost, NetworkMode } from "../../xml/network";
import { adoptProperty, Declaration, hostProperty, nameProperty, resourceNameProperty } from "../../resources/properties";
import type { Defined, ObjectType } from "../../resources/object-types";

export interface NetworkInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
  mode: NetworkMode;
  bridge?: string;
  /** Gateway addresses with prefix, e.g. "192.168.171.1/24". */
  addresses?: string[];
  dhcp?: { start: string; end: string; hosts?: DhcpHost[] };
  domain?: string;
  autostart?: boolean;
  adopt?: boolean;
}

export interface NetworkOutputs extends NetworkInputs {
  kvmKind: "Network";
  uuid: string;
  bridge: string;
  active: boolean;
}

export const dhcpRange = (n: NetworkInputs) => n.dhcp && { start: n.dhcp.start, end: n.dhcp.end };
/** Reservations as a set: libvirt keeps them in the order they were added, the program in its own. */
const reservations = (n: NetworkInputs) => [...(n.dhcp?.hosts ?? [])].sort((a, b) => a.mac.localeCompare(b.mac));

const dhcpHost: ObjectType<DhcpHost> = {
  doc: "A DHCP reservation",
  fields: {
    mac: { type: "string", doc: "the guest NIC's MAC (pin it on the Domain's interface)", required: true },
    ip: { type: "string", doc: "the address it always gets, inside the DHCP subnet", required: true },
    name: { type: "string", doc: "a host name dnsmasq serves for it" },
  },
};

const dhcp: ObjectType<Defined<NetworkInputs["dhcp"]>> = {
  doc: "A Network's DHCP range and reservations",
  fields: {
    start: { type: "string", doc: "the first address of the range, inside the first IPv4 subnet", required: true },
    end: { type: "string", doc: "the last address of the range", required: true },
    hosts: { type: "DhcpHost[]", doc: "reservations; they change in place, live" },
  },
};

export const networkDeclaration: Declaration<NetworkInputs, NetworkOutputs> = {
  kind: "Network",
  doc: "A libvirt virtual network; Domains join it with `networkInterfaces: [{ network: net.name }]`",
  namedBy: ["name"],
  outputs: {
    uuid: { type: "string", doc: "the network's UUID, its identity" },
    active: { type: "boolean", doc: "whether it runs" },
  },
  // a network found stopped (refresh) is started again by the update
  drifted: (o) => o.active === false,
  properties: {
    host: hostProperty(),
    name: nameProperty("the network's name on the host"),
    resourceName: resourceNameProperty(),
    mode: {
      type: '"nat" | "isolated" | "route" | "bridge"',
      doc: '`"nat"` (to the host\'s uplink), `"isolated"` (no forwarding), `"route"`, or `"bridge"` (an existing host bridge)',
      required: true,
      change: "replace",
    },
    bridge: {
      type: "string",
      doc: 'the bridge device; required in bridge mode (the host\'s bridge, e.g. `"br0"`)',
      defaultDoc: "libvirt picks `virbrN`",
      // the bridge libvirt named is recorded as an output: only a name the program asks for counts
      onlyWhenGiven: true,
      filled: true,
      change: "replace",
    },
    addresses: {
      type: "string[]",
      doc: 'gateway addresses with prefix, `["192.168.171.1/24"]` (IPv6 too); required for nat and route, not given in bridge mode',
      change: "replace",
    },
    dhcp: {
      type: "Dhcp",
      doc: "a DHCP range inside the first IPv4 subnet, and reservations (`hosts`), which change live and in the definition",
      change: "live",
      same: (o, n) => deepEqual(dhcpRange(o), dhcpRange(n)) && deepEqual(reservations(o), reservations(n)),
      replaceWhen: { doc: "another range (`start`, `end`) or none", test: (o, n) => !deepEqual(dhcpRange(o), dhcpRange(n)) },
    },
    domain: { type: "string", doc: "DNS domain served to guests", change: "replace" },
    autostart: { type: "boolean", doc: "started with the host", default: true, change: "live" },
    adopt: adoptProperty("a network of that name made outside Pulumi"),
  },
  types: { Dhcp: dhcp, DhcpHost: dhcpHost },
};
