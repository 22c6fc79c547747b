// The NetworkFilter's properties, declared once (properties.ts), and its inputs' shape:
// the rules change in place (libvirt applies them to the running NICs at once), the name replaces.
import type { HostConfig } from "../../ssh/host";
import { FILTER_ACTIONS, FILTER_DIRECTIONS, FILTER_PROTOCOLS, FilterRule } from "./object";
import { adoptProperty, Declaration, hostProperty, nameProperty, resourceNameProperty } from "../../resources/properties";
import { choice, ObjectType } from "../../resources/object-types";

export interface NetworkFilterInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
  rules: FilterRule[];
  adopt?: boolean;
}

export interface NetworkFilterOutputs extends NetworkFilterInputs {
  kvmKind: "NetworkFilter";
  uuid: string;
}

const filterRule: ObjectType<FilterRule> = {
  doc: "A rule of a NetworkFilter",
  fields: {
    action: {
      type: choice(FILTER_ACTIONS),
      doc: '"drop" and "reject" of what comes in refuse new connections only: replies to the VM\'s own connections, and its DHCP, still reach it',
      required: true,
    },
    direction: { type: choice(FILTER_DIRECTIONS), doc: '"in": to the VM; "out": from it; "inout": both', required: true },
    protocol: { type: choice(FILTER_PROTOCOLS), doc: '"all": every IPv4 protocol', required: true },
    ports: { type: "string", doc: 'the destination port or range, "22" or "8000-8080" (tcp and udp)' },
    cidr: {
      type: "string",
      doc: 'the other side, an IPv4 CIDR ("10.0.0.0/8"): the source of what comes in, the destination of what goes out (not with "inout")',
    },
    priority: { type: "integer", doc: "the order of the rules, lowest first: -999 to 1000 (default 500)" },
  },
};

export const networkFilterDeclaration: Declaration<NetworkFilterInputs, NetworkFilterOutputs> = {
  kind: "NetworkFilter",
  doc: "Firewall rules for a VM's NICs (libvirt's nwfilter): a Domain's NIC names it as its `filter`",
  namedBy: ["name"],
  outputs: {
    uuid: { type: "string", doc: "the filter's UUID, its identity" },
  },
  properties: {
    host: hostProperty(),
    name: nameProperty("the filter's name on the host"),
    resourceName: resourceNameProperty(),
    rules: {
      type: "FilterRule[]",
      doc: "the rules, applied in the order of their priority; what no rule matches passes. A VM's DHCP always passes, and a drop or reject of what comes in refuses new connections only",
      required: true,
      change: "live",
    },
    adopt: adoptProperty("a network filter of that name made outside Pulumi (its rules become the program's)"),
  },
  types: { FilterRule: filterRule },
};
