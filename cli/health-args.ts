// Arguments of `pulumi-kvm health`, parsed and validated into a plan (exit code 2 on error).
import { parseArgs } from "util";
import { effectiveTimeout } from "../provider/health/timeouts";
import { HostConfig } from "../provider/ssh/host";
import { parseDuration } from "../provider/units";
import { UsageError } from "./usage";

export const HEALTH_USAGE = `Check libvirt hosts the way every pulumi preview does: SSH login, libvirt's
handshake, the storage pool (and a network), each failure named by its stage.

usage: pulumi-kvm health --host [user@]address[:port] [--host …] [options]
       pulumi-kvm health --stack NAME [--cwd DIR] [options]

what to check:
  --host SPEC         a host: [user@]address[:port], or a Host alias of ~/.ssh/config
                      (repeatable)
  --stack NAME        every host and every pulumi-kvm resource of this Pulumi stack
  --cwd DIR           the Pulumi project directory for --stack (default: .)
  --pool NAME         storage pool that must exist and run (default: default)
  --network NAME      network that must be active (adds a NETWORK column)

how to connect (as privateKeyPath, knownHostsPath, socketPath of a resource's host;
with --stack, over what the stack recorded):
  --identity FILE     private key (default: ~/.ssh/config's IdentityFile, else
                      ssh-agent, else ~/.ssh/id_*)
  --known-hosts FILE  known_hosts to verify host keys (default: ~/.ssh/known_hosts)
  --socket PATH       libvirtd's socket (default: /var/run/libvirt/libvirt-sock)

how to run:
  --timeout DUR       per-host deadline, e.g. 10s; 0 (default) means min(15s, interval)
  --watch             repeat every --interval until interrupted
  --interval DUR      time between checks with --watch (default: 30s)
  --json              machine-readable output
  -h, --help          this help

examples:
  pulumi-kvm health --host root@hv1 --host root@hv2:2222 --pool default
  pulumi-kvm health --stack prod --cwd ./infra
  pulumi-kvm health --host root@hv1 --network default --watch --interval 30s --json

exit codes: 0 all healthy, 1 something unhealthy, 2 usage error, 3 the command
failed (a stack it cannot read)
stages and fixes: docs/health.md in the pulumi-kvm package
`;

/** --identity, --known-hosts and --socket: for --host, and over what a stack recorded. */
export type LoginOverrides = Pick<HostConfig, "privateKeyPath" | "knownHostsPath" | "socketPath">;

export interface HealthPlan {
  hosts: HostConfig[];
  login: LoginOverrides;
  stack?: string;
  cwd: string;
  pool: string;
  network?: string;
  timeoutMs: number;
  watch: boolean;
  intervalMs: number;
  json: boolean;
}

export function parseHostSpec(spec: string): { user?: string; address: string; port?: number } {
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:@]+)(?::(\d+))?$/.exec(spec);
  if (!m) throw new UsageError(`--host "${spec}" is not [user@]address[:port]`);
  const port = m[3] ? Number(m[3]) : undefined;
  if (port !== undefined && (port < 1 || port > 65535)) throw new UsageError(`--host "${spec}": port ${port} is out of range`);
  return { user: m[1], address: m[2].replace(/^\[|\]$/g, ""), port };
}

function duration(flag: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const d = parseDuration(v);
  if ("error" in d) throw new UsageError(`${flag}: ${d.error}`);
  return d.ms;
}

export function parseHealthArgs(argv: string[]): HealthPlan {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: "string", multiple: true },
        identity: { type: "string" },
        "known-hosts": { type: "string" },
        socket: { type: "string" },
        pool: { type: "string" },
        network: { type: "string" },
        stack: { type: "string" },
        cwd: { type: "string" },
        timeout: { type: "string" },
        watch: { type: "boolean" },
        interval: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) throw new UsageError("");
  const hostSpecs = values.host ?? [];
  if (!hostSpecs.length && !values.stack) throw new UsageError("give at least one --host, or --stack");
  const intervalMs = duration("--interval", values.interval, 30_000);
  if (values.watch && intervalMs <= 0) throw new UsageError("--interval must be longer than 0");
  const t = effectiveTimeout(duration("--timeout", values.timeout, 0), values.watch || values.interval ? intervalMs : undefined);
  if ("error" in t) throw new UsageError(t.error);
  const login: LoginOverrides = { privateKeyPath: values.identity, knownHostsPath: values["known-hosts"], socketPath: values.socket };
  const hosts = hostSpecs.map((spec): HostConfig => ({ ...parseHostSpec(spec), ...login }));
  return {
    hosts,
    login,
    stack: values.stack,
    cwd: values.cwd ?? process.cwd(),
    pool: values.pool ?? "default",
    network: values.network,
    timeoutMs: t.ms,
    watch: !!values.watch,
    intervalMs,
    json: !!values.json,
  };
}
