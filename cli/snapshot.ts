// `pulumi-kvm snapshot list|revert DOMAIN [SNAPSHOT]`: a domain's snapshots, and the way
// back to one of them. Reverting is the user's deliberate act; `pulumi refresh` then shows
// what it changed.
import { parseArgs } from "util";
import { describeState, isLibvirtError } from "../provider/libvirt/api";
import { HostPool } from "../provider/pool/host-pool";
import { hostLabel } from "../provider/resources/host-inputs";
import { parseSnapshotXml } from "../provider/xml/snapshot";
import { DomainTarget, domainTarget, TARGET_OPTIONS, TARGET_USAGE } from "./domain-target";
import { planOrExit, UsageError } from "./usage";

export const SNAPSHOT_USAGE = `List a VM's snapshots, or revert it to one.

usage: pulumi-kvm snapshot list DOMAIN (--host SPEC | --stack NAME) [--json]
       pulumi-kvm snapshot revert DOMAIN SNAPSHOT (--host SPEC | --stack NAME)

${TARGET_USAGE}

  --json              list as JSON
  -h, --help          this help

revert puts the domain back to the moment of the snapshot: its disks, and with a memory
snapshot its running state (a snapshot of a shut-off VM leaves it shut off). Run
pulumi refresh afterwards to see what changed; the next pulumi up starts a VM the
program declares running.

exit codes: 0 done, 1 no such domain or snapshot, or libvirt refused, 2 usage error,
3 the command failed (a host or stack it cannot reach)
`;

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...TARGET_OPTIONS, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) throw new UsageError("");
  const [action, domain, snapshot, ...extra] = positionals;
  if (action !== "list" && action !== "revert") throw new UsageError('say "list" or "revert"');
  if (!domain) throw new UsageError("name the domain");
  if (action === "revert" && !snapshot) throw new UsageError("name the snapshot to revert to");
  if (extra.length || (action === "list" && snapshot)) throw new UsageError(`unexpected argument "${extra[0] ?? snapshot}"`);
  return { action, domain, snapshot: snapshot ?? "", json: !!values.json, target: domainTarget(values) };
}

type Plan = ReturnType<typeof parse>;

async function run(plan: Plan, { host, find }: DomainTarget, pool: HostPool, out: (s: string) => void): Promise<number> {
  return pool.run(host, async (lv) => {
    const dom = await find(lv);
    if (plan.action === "list") {
      const snaps = await Promise.all((await lv.listSnapshots(dom)).map(async (s) => parseSnapshotXml(await lv.snapshotXml(s))));
      snaps.sort((a, b) => a.creationTime - b.creationTime);
      const rows = snaps.map((s) => ({
        name: s.name,
        created: new Date(s.creationTime * 1000).toISOString(),
        state: s.state,
        memory: s.memory,
        description: s.description ?? "",
      }));
      if (plan.json) out(JSON.stringify(rows, null, 2) + "\n");
      else if (!rows.length) out(`domain ${plan.domain} on ${hostLabel(host)} has no snapshots\n`);
      else for (const r of rows) out(`${r.name}\t${r.created}\t${r.state}${r.memory ? " (with memory)" : ""}\t${r.description}\n`);
      return 0;
    }
    const snap = await lv.lookupSnapshot(dom, plan.snapshot);
    await lv.revertSnapshot(snap, 0);
    out(
      `domain ${plan.domain} on ${hostLabel(host)} reverted to snapshot ${plan.snapshot}; it is ${describeState(await lv.domainState(dom))}. Run pulumi refresh to record what changed\n`,
    );
    return 0;
  });
}

export async function snapshotCommand(argv: string[]): Promise<number> {
  const plan = planOrExit("snapshot", SNAPSHOT_USAGE, () => parse(argv));
  if (typeof plan === "number") return plan;
  const target = await plan.target(plan.domain);
  const pool = new HostPool();
  try {
    return await run(plan, target, pool, (s) => process.stdout.write(s));
  } catch (err) {
    if (!isLibvirtError(err)) throw err;
    const refused = `libvirt refused: ${err.message}`;
    const what = isLibvirtError(err, "NO_DOMAIN")
      ? target.missing
      : isLibvirtError(err, "NO_DOMAIN_SNAPSHOT")
        ? `domain ${plan.domain} has no snapshot "${plan.snapshot}"`
        : refused;
    process.stderr.write(`pulumi-kvm snapshot ${plan.action}: ${what}\n`);
    return 1;
  } finally {
    await pool.closeAll();
  }
}
