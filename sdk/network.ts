import * as pulumi from "@pulumi/pulumi";
import { hostInput, HostArgs } from "./host";
import { providerShim } from "./shim";
import { MODULE } from "./resource-type";

export interface DhcpHostArgs {
  mac: pulumi.Input<string>;
  ip: pulumi.Input<string>;
  name?: pulumi.Input<string>;
}

export interface DhcpArgs {
  start: pulumi.Input<string>;
  end: pulumi.Input<string>;
  /** Reservations; they change in place, live. */
  hosts?: pulumi.Input<pulumi.Input<DhcpHostArgs>[]>;
}

export interface NetworkArgs {
  host: pulumi.Input<HostArgs>;
  /** Network name (default: the resource name). */
  name?: pulumi.Input<string>;
  /** nat (to the host's uplink), isolated (no forwarding), route, or bridge (an existing host bridge). */
  mode: pulumi.Input<"nat" | "isolated" | "route" | "bridge">;
  /** The bridge device: libvirt names one when left out; required in bridge mode. */
  bridge?: pulumi.Input<string>;
  /** Gateway addresses with prefix, e.g. ["192.168.171.1/24"]. */
  addresses?: pulumi.Input<pulumi.Input<string>[]>;
  dhcp?: pulumi.Input<DhcpArgs>;
  /** DNS domain served to guests. */
  domain?: pulumi.Input<string>;
  /** Started with libvirtd (default true). */
  autostart?: pulumi.Input<boolean>;
  /** Take over a network of this name that already exists on the host. */
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
    super(
      providerShim,
      name,
      {
        ...args,
        host: hostInput(args.host),
        resourceName: name,
        name: args.name,
        bridge: args.bridge,
        autostart: args.autostart,
        kvmKind: "Network",
        uuid: undefined,
        active: undefined,
      },
      opts,
      MODULE,
      "Network",
    );
  }
}
