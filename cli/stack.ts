// `--stack`: reads a stack's state with `pulumi stack export`, finds pulumi-kvm
// resources (their outputs carry kvmKind), and reports, per resource, whether it still
// exists on its host and whether a domain, pool or network is in its recorded state.
import { execFile } from "child_process";
import * as path from "path";
import { promisify } from "util";
import { HostHealth } from "../provider/health/check";
import { HostPool } from "../provider/pool/host-pool";
import { isLibvirtError } from "../provider/libvirt/api";
import { NotTheStacks, StackRecord } from "../provider/resources/stack-record";
import { HostConfig, hostIdentity, resolveHost } from "../provider/ssh/host";
import { GONE_CODES } from "../provider/kinds/objects";
import { isKind, Kind, KINDS } from "../provider/kinds";
import type { KindModule } from "../provider/resources/kind";
import type { LoginOverrides } from "./health-args";
import { reveal } from "../provider/pulumi-secrets";

const run = promisify(execFile);

export interface ResourceReport {
  urn: string;
  name: string;
  kind: string;
  host: string;
  status: "ok" | "missing" | "drift" | "unknown";
  detail?: string;
}

type StackResource = StackRecord & { kind: Kind };

export interface StackTargets {
  hosts: { config: HostConfig; pool?: string }[];
  resources(pool: HostPool, health: HostHealth[], timeoutMs: number): Promise<ResourceReport[]>;
}

/** What of `pulumi stack export`'s JSON this reads: each resource's URN, ID and outputs. */
export interface StackState {
  deployment?: { resources?: { urn: string; id?: string; outputs?: Record<string, unknown> }[] };
}

export async function exportStack(stack: string, cwd: string): Promise<StackState> {
  try {
    const { stdout } = await run("pulumi", ["stack", "export", "--show-secrets", "--stack", stack, "--cwd", cwd], { maxBuffer: 256 * 1024 * 1024 });
    return JSON.parse(stdout) as StackState;
  } catch (err) {
    throw new Error(
      `cannot read stack "${stack}" in ${cwd} with "pulumi stack export": ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}. Is the pulumi CLI on PATH, are you logged in to the stack's backend, and is PULUMI_CONFIG_PASSPHRASE set if the stack uses one?`,
      { cause: err },
    );
  }
}

export function recordedResources(state: StackState): StackResource[] {
  return (state.deployment?.resources ?? []).flatMap((r) => {
    const o = reveal(r.outputs).value as { kvmKind?: unknown; name: string; host: HostConfig } | undefined;
    if (!o || !isKind(o.kvmKind)) return [];
    const { record } = KINDS[o.kvmKind] as KindModule;
    return [{ urn: r.urn, kind: o.kvmKind, name: o.name, host: o.host, ...record.read(o) }];
  });
}

function hostKey(h: HostConfig): string {
  return hostIdentity(resolveHost(h));
}

/**
 * A recorded host as this command reaches it: its relative paths resolved against the
 * stack's project directory, and the command line's login options over the record (a CI
 * job's key is not the one of the machine that ran `up`).
 */
function reachable(host: HostConfig, cwd: string, login: LoginOverrides): HostConfig {
  const out: HostConfig = { ...host };
  for (const p of ["privateKeyPath", "knownHostsPath", "sshConfigPath"] as const) {
    const v = out[p];
    if (v && v !== "none" && !v.startsWith("~") && !path.isAbsolute(v)) out[p] = path.resolve(cwd, v);
  }
  if (login.privateKeyPath) {
    out.privateKeyPath = login.privateKeyPath;
    delete out.privateKey;
    delete out.passphrase;
  }
  if (login.knownHostsPath) out.knownHostsPath = login.knownHostsPath;
  if (login.socketPath) out.socketPath = login.socketPath;
  return out;
}

/** The host and identity a stack recorded for its Domain named `name`, the host as this command reaches it. */
export async function recordedDomain(stack: string, cwd: string, login: LoginOverrides, name: string): Promise<{ host: HostConfig; uuid?: string }> {
  const domains = recordedResources(await exportStack(stack, cwd)).filter((r) => r.kind === "Domain");
  const found = domains.filter((r) => r.name === name);
  if (found.length === 0)
    throw new Error(
      `stack "${stack}" has no Domain named "${name}" (its domains: ${domains.map((d) => d.name).join(", ") || "none"}); name one of them, or give --host`,
    );
  if (new Set(found.map((r) => hostKey(r.host))).size > 1) throw new Error(`stack "${stack}" has a Domain named "${name}" on several hosts; give --host`);
  return { host: reachable(found[0].host, cwd, login), uuid: found[0].uuid };
}

export async function stackTargets(stack: string, cwd: string, login: LoginOverrides = {}): Promise<StackTargets> {
  const recorded = recordedResources(await exportStack(stack, cwd)).map((r) => ({ ...r, host: reachable(r.host, cwd, login) }));
  // each host is checked with the first pool the stack uses there (none when it only has networks)
  const hosts = new Map<string, { config: HostConfig; pool?: string }>();
  for (const r of recorded) {
    const h = hosts.get(hostKey(r.host));
    if (!h) hosts.set(hostKey(r.host), { config: r.host, pool: r.pool });
    else h.pool ??= r.pool;
  }
  const list = [...hosts.values()];
  return {
    hosts: list,
    async resources(pool, health, timeoutMs) {
      return Promise.all(
        recorded.map(async (r): Promise<ResourceReport> => {
          const i = list.findIndex((h) => hostKey(h.config) === hostKey(r.host));
          const h = health[i];
          const base = { urn: r.urn, name: r.name, kind: r.kind, host: h?.host ?? r.host.address };
          if (!h?.ok && h?.stage !== "pool") return { ...base, status: "unknown", detail: `host unhealthy (${h?.stage})` };
          try {
            return await pool.probe(
              r.host,
              async (lv): Promise<ResourceReport> => {
                const { onHost, states } = KINDS[r.kind].record;
                const seen = await onHost(lv, r);
                if (seen === undefined) return { ...base, status: "ok" };
                const word = states ?? ["active", "inactive"];
                if (r.running !== undefined && seen.active !== r.running) {
                  return { ...base, status: "drift", detail: `recorded ${r.running ? word[0] : word[1]}, host says ${seen.said}` };
                }
                return { ...base, status: "ok", detail: seen.said };
              },
              timeoutMs,
            );
          } catch (err) {
            if (err instanceof NotTheStacks) return { ...base, status: "missing", detail: err.message };
            if (isLibvirtError(err, ...GONE_CODES)) {
              return {
                ...base,
                status: "missing",
                detail: `${r.kind.toLowerCase()} ${r.name} is gone from the host (${err.codeName}); pulumi refresh will drop it`,
              };
            }
            return { ...base, status: "unknown", detail: (err as Error).message };
          }
        }),
      );
    },
  };
}
