import * as pulumi from "@pulumi/pulumi";

/** How to reach a libvirt host over SSH. See docs/connection.md. */
export interface HostArgs {
  /** Host name, IP address, or a Host alias of ~/.ssh/config. */
  address: pulumi.Input<string>;
  port?: pulumi.Input<number>;
  user?: pulumi.Input<string>;
  privateKeyPath?: pulumi.Input<string>;
  /** Private key text; stored as a secret. */
  privateKey?: pulumi.Input<string>;
  /** Passphrase of the key; stored as a secret. */
  passphrase?: pulumi.Input<string>;
  /** true: the agent at SSH_AUTH_SOCK; a string: that agent socket. */
  agent?: pulumi.Input<boolean | string>;
  knownHostsPath?: pulumi.Input<string>;
  /** Pin the host key ("SHA256:…") instead of known_hosts. */
  hostKeyFingerprint?: pulumi.Input<string>;
  /** false disables host key verification (throwaway labs only). */
  strictHostKeyChecking?: pulumi.Input<boolean>;
  socketPath?: pulumi.Input<string>;
  uri?: pulumi.Input<string>;
  sshConfigPath?: pulumi.Input<string>;
  connectTimeout?: pulumi.Input<number>;
  keepaliveInterval?: pulumi.Input<number>;
  keepaliveCount?: pulumi.Input<number>;
}

/** The host as stored: whole object secret when it carries a key or passphrase. */
export function hostInput(host: pulumi.Input<HostArgs>): pulumi.Output<HostArgs> {
  return pulumi.output(host).apply((h: any) => (h && (h.privateKey || h.passphrase) ? pulumi.secret(h) : h)) as pulumi.Output<HostArgs>;
}
