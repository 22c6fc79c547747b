import * as pulumi from "@pulumi/pulumi";
import { HostArgs } from "./host";
import { providerShim } from "./shim";
import { MODULE, registered } from "./resource-type";

export interface DhcpHostArgs {
  /** The guest NIC's MAC (pin it on the Domain's interface). */
  mac: pulumi.Input<string>;
  /** The address it always gets, inside the DHCP subnet. */
  ip: pulumi.Input<string>;
  /** A host name dnsmasq serves for it. */
  name?: pulumi.Input<string>;
}

export interface DhcpArgs {
  /** First address of the range, inside the first IPv4 subnet. */
  start: pulumi.Input<string>;
  /** Last address of the range. */
  end: pulumi.Input<string>;
  /** Reservations; they change in place, live. */
  hosts?: pulumi.Input<pulumi.Input<DhcpHostArgs>[]>;
}

export interface NetworkArgs {
  /** The libvirt host and how to log in (docs/connection.md). Another address, port, user, socket or URI replaces the resource; a login change is only recorded. */
  host: pulumi.Input<HostArgs>;
  /** Network name (default: the resource name). A change replaces. */
  name?: pulumi.Input<string>;
  /** nat (to the host's uplink), isolated (no forwarding), route, or bridge (an existing host bridge). A change replaces. */
  mode: pulumi.Input<"nat" | "isolated" | "route" | "bridge">;
  /** The bridge device: libvirt names one when left out; required in bridge mode. A change replaces. */
  bridge?: pulumi.Input<string>;
  /** Gateway addresses with prefix, e.g. ["192.168.171.1/24"]. A change replaces. */
  addresses?: pulumi.Input<pulumi.Input<string>[]>;
  /** A DHCP range and reservations: reservations change in place, live; another range replaces. */
  dhcp?: pulumi.Input<DhcpArgs>;
  /** DNS domain served to guests. A change replaces. */
  domain?: pulumi.Input<string>;
  /** Started with libvirtd (default true); changes in place. */
  autostart?: pulumi.Input<boolean>;
  /** Take over a network of this name that already exists on the host; only recorded. */
  adopt?: pulumi.Input<boolean>;
}

/** A libvirt virtual network. Domains join it with `networkInterfaces: [{ network: net.name }]`. */
export class Network extends pulumi.dynamic.Resource {
  public readonly name!: pulumi.Output<string>;
  public readonly uuid!: pulumi.Output<string>;
  /** The bridge device on the host. */
  public readonly bridge!: pulumi.Output<string>;
  public readonly active!: pulumi.Output<boolean>;
  public readonly autostart!: pulumi.Output<boolean>;
  public readonly host!: pulumi.Output<HostArgs>;

  constructor(name: string, args: NetworkArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerShim, name, registered("Network", name, args, ["bridge", "autostart", "uuid", "active"]), opts, MODULE, "Network");
  }
}
