// Which domain a command is about: by name on --host (with the login options), or the
// Domain of that name a stack recorded (--stack, --cwd): its host, and the domain by the
// UUID recorded, so a domain someone else made under that name is never the target.
import { DomainRef, Libvirt } from "../provider/libvirt/api";
import { hostLabel } from "../provider/resources/host-inputs";
import { HostConfig } from "../provider/ssh/host";
import { LoginOverrides, parseHostSpec } from "./health-args";
import { UsageError } from "./usage";
import { recordedDomain } from "./stack";
import { recordedDomainRef } from "../provider/kinds/domain/record";

export const TARGET_USAGE = `where the domain is (one of):
  --host SPEC         its host: [user@]address[:port], or a Host alias of ~/.ssh/config
  --stack NAME        the Domain of that name this Pulumi stack made (its host, its UUID)
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

export interface DomainTarget {
  host: HostConfig;
  /** What to say when find fails (NO_DOMAIN): the host has no domain of that name, or not the one the stack made. */
  missing: string;
  /** The domain on the host (libvirt's NO_DOMAIN when it is not there). */
  find(lv: Libvirt): Promise<DomainRef>;
}

/** Checks the target options now (a usage error), and resolves the domain later (a stack export). */
export function domainTarget(values: TargetValues): (domain: string) => Promise<DomainTarget> {
  if (!values.host === !values.stack) throw new UsageError("give either --host or --stack");
  const login: LoginOverrides = { privateKeyPath: values.identity, knownHostsPath: values["known-hosts"], socketPath: values.socket };
  if (values.host) {
    const host: HostConfig = { ...parseHostSpec(values.host), ...login };
    return async (domain) => ({ host, missing: `${hostLabel(host)} has no domain named "${domain}"`, find: (lv) => lv.lookupDomain(domain) });
  }
  return async (domain) => {
    const { host, uuid } = await recordedDomain(values.stack!, values.cwd ?? process.cwd(), login, domain);
    const missing = uuid
      ? `the domain "${domain}" stack "${values.stack}" made (UUID ${uuid}) is not on ${hostLabel(host)}; a domain of that name made by anyone else is left alone`
      : `${hostLabel(host)} has no domain named "${domain}"`;
    return { host, missing, find: (lv) => recordedDomainRef(lv, domain, uuid) };
  };
}
