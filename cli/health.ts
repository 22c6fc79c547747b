// `pulumi-kvm health`: checks hosts concurrently (a hung host costs at most the
// timeout and never delays the others), prints a table or JSON, exits 0/1/2.
import { checkHost, HostHealth } from "../provider/health/check";
import { HostPool } from "../provider/pool/host-pool";
import { formatBytes } from "../provider/units";
import { HEALTH_USAGE, HealthPlan, parseHealthArgs } from "./health-args";
import { planOrExit } from "./usage";
import { ResourceReport, stackTargets } from "./stack";
import { rememberedHosts, rememberHosts } from "./remembered-hosts";

export interface HealthReport {
  hosts: HostHealth[];
  resources?: ResourceReport[];
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}

/** The table; a NETWORK column when a network was asked for. Each error names its host once. */
export function renderHuman(report: HealthReport, network?: string): string {
  const rows = [["HOST", "STATUS", "STAGE", "LIBVIRT", "HOSTNAME", "POOL", "FREE", ...(network ? ["NETWORK"] : []), "LATENCY"]];
  for (const h of report.hosts) {
    rows.push([
      h.host,
      h.ok ? "ok" : "FAIL",
      h.stage ?? "-",
      h.libvirtVersion ?? "-",
      h.hostname ?? "-",
      h.pool ? `${h.pool.name} (${h.pool.state})` : "-",
      h.pool ? formatBytes(h.pool.availableBytes) : "-",
      ...(network ? [h.network ? `${h.network.name} (${h.network.active ? "active" : "inactive"})` : "-"] : []),
      `${h.latencyMs} ms`,
    ]);
  }
  let out = table(rows);
  const errors = report.hosts.filter((h) => !h.ok).map((h) => `  ${h.error}`);
  if (errors.length) out += "\n" + errors.join("\n") + "\n";
  if (report.resources?.length) {
    const r = [["RESOURCE", "KIND", "HOST", "STATUS", "DETAIL"]];
    for (const x of report.resources) r.push([x.name, x.kind, x.host, x.status, x.detail ?? ""]);
    out += "\n" + table(r);
  }
  return out;
}

export function renderJson(report: HealthReport): string {
  const hosts = report.hosts.map((h) => ({
    host: h.host,
    ok: h.ok,
    stage: h.stage ?? null,
    class: h.class ?? null,
    error: h.error ?? null,
    libvirtVersion: h.libvirtVersion ?? null,
    hostname: h.hostname ?? null,
    pool: h.pool ? { name: h.pool.name, state: h.pool.state, capacityBytes: h.pool.capacityBytes, availableBytes: h.pool.availableBytes } : null,
    network: h.network ?? null,
    latencyMs: h.latencyMs,
  }));
  return JSON.stringify(report.resources ? { hosts, resources: report.resources } : { hosts }, null, 2) + "\n";
}

async function checkOnce(plan: HealthPlan, pool: HostPool): Promise<HealthReport> {
  if (plan.stack) {
    for (const h of rememberedHosts(plan.cwd, plan.stack)) pool.dialAhead(h);
    const targets = await stackTargets(plan.stack, plan.cwd, plan.login);
    rememberHosts(
      plan.cwd,
      plan.stack,
      targets.hosts.map((h) => h.config),
    );
    const hosts = await Promise.all(targets.hosts.map((h) => checkHost(h.config, { pool: h.pool, network: plan.network, timeoutMs: plan.timeoutMs }, pool)));
    const extra = await Promise.all(plan.hosts.map((h) => checkHost(h, { pool: plan.pool, network: plan.network, timeoutMs: plan.timeoutMs }, pool)));
    return { hosts: [...hosts, ...extra], resources: await targets.resources(pool, hosts, plan.timeoutMs) };
  }
  return { hosts: await Promise.all(plan.hosts.map((h) => checkHost(h, { pool: plan.pool, network: plan.network, timeoutMs: plan.timeoutMs }, pool))) };
}

function healthy(r: HealthReport): boolean {
  return r.hosts.every((h) => h.ok) && (r.resources ?? []).every((x) => x.status === "ok");
}

export async function healthCommand(argv: string[]): Promise<number> {
  const plan = planOrExit("health", HEALTH_USAGE, () => parseHealthArgs(argv));
  if (typeof plan === "number") return plan;
  const pool = new HostPool();
  try {
    for (;;) {
      const started = Date.now();
      const report = await checkOnce(plan, pool);
      process.stdout.write(plan.json ? renderJson(report) : renderHuman(report, plan.network));
      if (!plan.watch) return healthy(report) ? 0 : 1;
      if (!plan.json) process.stdout.write("\n");
      await new Promise((r) => setTimeout(r, Math.max(0, plan.intervalMs - (Date.now() - started))));
    }
  } finally {
    await pool.closeAll();
  }
}
