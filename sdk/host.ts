import * as pulumi from "@pulumi/pulumi";
import { carriesSecret } from "../provider/resources/object-types";

/** How to reach a libvirt host over SSH. See docs/connection.md. */
export interface HostArgs {
  /** Host name, IP address, or a Host alias of ~/.ssh/config. */
  address: pulumi.Input<string>;
  /** SSH port (default: ~/.ssh/config's Port, else 22). */
  port?: pulumi.Input<number>;
  /** Login user (default: ~/.ssh/config's User, else the local user). */
  user?: pulumi.Input<string>;
  /** A private key file, "~/" and relative paths resolved where each operation runs. */
  privateKeyPath?: pulumi.Input<string>;
  /** Private key text; stored as a secret. */
  privateKey?: pulumi.Input<string>;
  /** Passphrase of the key; stored as a secret. */
  passphrase?: pulumi.Input<string>;
  /** true: the agent at SSH_AUTH_SOCK; a string: that agent socket. */
  agent?: pulumi.Input<boolean | string>;
  /** Where host keys are verified (default ~/.ssh/known_hosts). */
  knownHostsPath?: pulumi.Input<string>;
  /** Pin the host key ("SHA256:…", as ssh-keygen -lf prints it) instead of known_hosts. */
  hostKeyFingerprint?: pulumi.Input<string>;
  /** false disables host key verification (throwaway labs only). */
  strictHostKeyChecking?: pulumi.Input<boolean>;
  /** libvirtd's socket on the host (default /var/run/libvirt/libvirt-sock). */
  socketPath?: pulumi.Input<string>;
  /** The hypervisor URI opened on the host (default qemu:///system). */
  uri?: pulumi.Input<string>;
  /** The ssh_config to read (default ~/.ssh/config); "none" ignores it. */
  sshConfigPath?: pulumi.Input<string>;
  /** Seconds for the SSH and the libvirt handshake (default 20). */
  connectTimeout?: pulumi.Input<number>;
  /** Seconds between keepalives (default 5): a link silent for interval × (count + 1) seconds is redialled. */
  keepaliveInterval?: pulumi.Input<number>;
  /** Keepalives that may go unanswered (default 3). */
  keepaliveCount?: pulumi.Input<number>;
}

/** The host as stored: whole object secret when it carries a field declared secret (a key or passphrase). */
export function hostInput(host: pulumi.Input<HostArgs>): pulumi.Output<HostArgs> {
  return pulumi.output(host).apply((h: any) => (carriesSecret("Host", h) ? pulumi.secret(h) : h)) as pulumi.Output<HostArgs>;
}
