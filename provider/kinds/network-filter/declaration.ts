// The NetworkFilter's properties, declared once (properties.ts), and its inputs' shape:
// the rules change in place (libvirt applies them to the running NICs at once), the name replaces.
import type { HostConfig } from "../../ssh/host";
import type { FilterRule } from "../../xml/network-filter";
import { adoptProperty, Declaration, hostProperty, nameProperty, resourceNameProperty } from "../../resources/properties";

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
};
