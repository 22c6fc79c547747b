// `--stack`: reads a stack's state with `pulumi stack export`, finds pulumi-kvm
// resources (their outputs carry kvmKind), and reports, per resource, whether it still
// exists on its host and whether a domain is in its recorded running state.
import { execFile } from "child_process";
import { promisify } from "util";
import { HostHealth } from "../provider/health/check";
import { isActiveState } from "../provider/resources/domain-power";
import { HostPool } from "../provider/pool/host-pool";
import { isLibvirtError } from "../provider/libvirt/api";
import { HostConfig, hostIdentity, resolveHost } from "../provider/ssh/host";

const run = promisify(execFile);

export interface ResourceReport {
  urn: string;
  name: string;
  kind: string;
  host: string;
  status: "ok" | "missing" | "drift" | "unknown";
  detail?: string;
}

interface Recorded {
  urn: string;
  kind: "Image" | "Volume" | "Domain";
  name: string;
  pool: string;
  host: HostConfig;
  running?: boolean;
}

export interface StackTargets {
  hosts: { config: HostConfig; pool: string }[];
  resources(pool: HostPool, health: HostHealth[], timeoutMs: number): Promise<ResourceReport[]>;
}

/** Secrets in an export made with --show-secrets are plain; older formats wrap them. */
function plain(v: any): any {
  if (v && typeof v === "object" && "4dabf18193072939515e22adb298388d" in v) return "plaintext" in v ? JSON.parse(v.plaintext) : v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

export async function exportStack(stack: string, cwd: string): Promise<any> {
  try {
    const { stdout } = await run("pulumi", ["stack", "export", "--show-secrets", "--stack", stack, "--cwd", cwd], { maxBuffer: 256 * 1024 * 1024 });
    return JSON.parse(stdout);
  } catch (err) {
    throw new Error(`cannot read stack "${stack}" in ${cwd} with "pulumi stack export": ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}. Is the pulumi CLI on PATH, are you logged in to the stack's backend, and is PULUMI_CONFIG_PASSPHRASE set if the stack uses one?`);
  }
}

export function recordedResources(state: any): Recorded[] {
  const resources: any[] = state?.deployment?.resources ?? [];
  return resources
    .filter((r) => r.outputs && ["Image", "Volume", "Domain"].includes(plain(r.outputs.kvmKind)))
    .map((r) => {
      const o = plain(r.outputs);
      return { urn: r.urn, kind: o.kvmKind, name: o.name, pool: o.pool ?? "default", host: o.host, running: o.running };
    });
}

function hostKey(h: HostConfig): string {
  return hostIdentity(resolveHost(h));
}

export async function stackTargets(stack: string, cwd: string): Promise<StackTargets> {
  const recorded = recordedResources(await exportStack(stack, cwd));
  const hosts = new Map<string, { config: HostConfig; pool: string }>();
  for (const r of recorded) if (!hosts.has(hostKey(r.host))) hosts.set(hostKey(r.host), { config: r.host, pool: r.pool });
  const list = [...hosts.values()];
  return {
    hosts: list,
    async resources(pool, health, timeoutMs) {
      return Promise.all(recorded.map(async (r): Promise<ResourceReport> => {
        const i = list.findIndex((h) => hostKey(h.config) === hostKey(r.host));
        const h = health[i];
        const base = { urn: r.urn, name: r.name, kind: r.kind, host: h?.host ?? r.host.address };
        if (!h?.ok && h?.stage !== "pool") return { ...base, status: "unknown", detail: `host unhealthy (${h?.stage})` };
        try {
          return await pool.probe(r.host, async (lv): Promise<ResourceReport> => {
            if (r.kind === "Domain") {
              const dom = await lv.lookupDomain(r.name);
              const { state } = await lv.domainState(dom);
              const running = isActiveState(state);
              if (r.running !== undefined && running !== r.running) {
                return { ...base, status: "drift", detail: `recorded ${r.running ? "running" : "stopped"}, host says ${running ? "running" : "not running"}` };
              }
              return { ...base, status: "ok", detail: running ? "running" : "stopped" };
            }
            await lv.lookupVolume(await lv.lookupPool(r.pool), r.name);
            return { ...base, status: "ok" };
          }, timeoutMs);
        } catch (err) {
          if (isLibvirtError(err, "NO_DOMAIN", "NO_STORAGE_VOL", "NO_STORAGE_POOL")) {
            return { ...base, status: "missing", detail: `${r.kind.toLowerCase()} ${r.name} is gone from the host (${err.codeName}); pulumi refresh will drop it` };
          }
          return { ...base, status: "unknown", detail: (err as Error).message };
        }
      }));
    },
  };
}
