// The host as a resource registers it: the whole object a secret when it carries a field
// declared secret (a key or passphrase).
import * as pulumi from "@pulumi/pulumi";
import { carriesSecret } from "../provider/resources/object-types";
import type { HostArgs } from "./types";

export function hostInput(host: pulumi.Input<HostArgs>): pulumi.Output<HostArgs> {
  return pulumi.output(host).apply((h: any) => (carriesSecret("Host", h) ? pulumi.secret(h) : h)) as pulumi.Output<HostArgs>;
}
