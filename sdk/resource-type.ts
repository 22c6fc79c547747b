import * as pulumi from "@pulumi/pulumi";

// Previews and policy packs see `pulumi-nodejs:dynamic/kvm:Image` (…:Volume, …:Domain).
// Stacks made before 0.2.0 hold the dynamic default type; the alias moves those
// resources to the new type in place.
export const MODULE = "kvm";
const LEGACY_TYPE = "pulumi-nodejs:dynamic:Resource";

export function withLegacyAlias(opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  return pulumi.mergeOptions(opts, { aliases: [{ type: LEGACY_TYPE }] });
}
