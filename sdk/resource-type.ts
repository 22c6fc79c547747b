import * as pulumi from "@pulumi/pulumi";
import { hostInput } from "./host";
import type { HostArgs } from "./types";

// How a resource registers with the engine: its type (previews and policy packs see
// `pulumi-nodejs:dynamic/kvm:Image`, …:Volume, …:Domain; stacks made before 0.2.0 hold
// the dynamic default type, and the alias moves those resources to the new type in
// place), and the properties it registers.
export const MODULE = "kvm";
const LEGACY_TYPE = "pulumi-nodejs:dynamic:Resource";

export function withLegacyAlias(opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  return pulumi.mergeOptions(opts, { aliases: [{ type: LEGACY_TYPE }] });
}

/**
 * The properties a resource registers: every output it names (undefined until the
 * provider fills it), the inputs as given with the host stored as hostInput does, its
 * kind, and the engine's name of the resource (the default of `name`).
 */
export function registered(
  kind: string,
  name: string,
  args: { host: pulumi.Input<HostArgs>; name?: unknown },
  outputs: string[],
  overrides: pulumi.Inputs = {},
): pulumi.Inputs {
  return {
    ...Object.fromEntries(outputs.map((k) => [k, undefined])),
    ...args,
    name: args.name,
    host: hostInput(args.host),
    resourceName: name,
    kvmKind: kind,
    ...overrides,
  };
}
