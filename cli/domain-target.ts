// Which host a command about one domain talks to: --host with the login options, or the
// host a stack recorded for its Domain of that name (--stack, --cwd).
import { HostConfig } from "../provider/ssh/host";
import { LoginOverrides, parseHostSpec } from "./health-args";
import { UsageError } from "./usage";
import { recordedDomainHost } from "./stack";

export const TARGET_USAGE = `where the domain is (one of):
  --host SPEC         its host: [user@]address[:port], or a Host alias of ~/.ssh/config
  --stack NAME        the host this Pulumi stack recorded for its Domain of that name
  --cwd DIR           the Pulumi project directory for --stack (default: .)

how to connect (as privateKeyPath, knownHostsPath, socketPath of a resource's host;
with --stack, over what the stack recorded):
  --identity FILE     private key
  --known-hosts FILE  known_hosts to verify host keys (default: ~/.ssh/known_hosts)
  --socket PATH       libvirtd's socket (default: /var/run/libvirt/libvirt-sock)`;

/** The parseArgs options every domain command takes. */
export const TARGET_OPTIONS = {
  host: { type: "string" },
  stack: { type: "string" },
  cwd: { type: "string" },
  identity: { type: "string" },
  "known-hosts": { type: "string" },
  socket: { type: "string" },
} as const;

export interface TargetValues {
  host?: string;
  stack?: string;
  cwd?: string;
  identity?: string;
  "known-hosts"?: string;
  socket?: string;
}

/** Checks the target options now (a usage error), and resolves the host later (a stack export). */
export function domainTarget(values: TargetValues): (domain: string) => Promise<HostConfig> {
  if (!values.host === !values.stack) throw new UsageError("give either --host or --stack");
  const login: LoginOverrides = { privateKeyPath: values.identity, knownHostsPath: values["known-hosts"], socketPath: values.socket };
  if (values.host) {
    const host: HostConfig = { ...parseHostSpec(values.host), ...login };
    return async () => host;
  }
  return (domain) => recordedDomainHost(values.stack!, values.cwd ?? process.cwd(), login, domain);
}
