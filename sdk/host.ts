// The host as a resource registers it: the whole object a secret when it carries a field
// declared secret (a key or passphrase); noted for the provider to dial ahead (hosts-ahead.ts).
import * as pulumi from "@pulumi/pulumi";
import { carriesSecret } from "../provider/resources/object-types";
import { noteHost } from "../provider/resources/hosts-ahead";
import type { HostArgs } from "./types";

export function hostInput(host: pulumi.Input<HostArgs>): pulumi.Output<HostArgs> {
  return pulumi.output(host).apply((h: any) => {
    noteHost(h);
    return carriesSecret("Host", h) ? pulumi.secret(h) : h;
  }) as pulumi.Output<HostArgs>;
}
