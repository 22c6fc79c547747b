// A fleet of 32 hosts against one: the same 64 resources (32 blank raw Volumes, 32 shut-off
// Domains on them) on one host, or spread over 32 (the lab's two sshd and 30 more in front of
// the same libvirtd), through the real CLI, and `pulumi-kvm health --stack` of each. The two
// stacks take turns in each round; each command is timed as the user waits for it (the CLI's
// whole run). Per command: SSH logins per host (sshd logs), the dynamic provider's peak
// RSS and the CPU each process spent (/proc): every "host" here shares this machine's cores,
// so what the hosts' side (sshd, libvirtd) spends is measured beside the times.
import * as fs from "fs";
import * as path from "path";
import { acceptedLogins } from "../test/support/hosts";
import { LabEnv, repoRoot } from "../test/support/lab";
import { e2eStack, E2eStack } from "../test/support/pulumi";
import { knownHostsFor, startSshd, TestSshd } from "../test/support/sshd";
import { runCli } from "../test/support/cli";
import { Benchmark, cpuByProcess, fmtRuns, interleaved, machineCpuSeconds, Row, timed } from "./harness";

const HOSTS = 32;
const RESOURCES = 64;
const ROUNDS = 3;

/** The dynamic provider's processes (node running @pulumi/pulumi's dynamic-provider) and their resident memory now, in MiB. */
function providerRss(): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("dynamic-provider")) continue;
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      if (kb) out.set(Number(pid), Number(kb) / 1024);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

interface Command {
  seconds: number;
  /** SSH logins the command made on each host. */
  logins: number[];
  peakRssMiB: number;
  /** CPU seconds by process name, and the whole machine's busy seconds. */
  cpu: Map<string, number>;
  busy: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median CPU seconds of each process name that spent at least 0.05 s (the CLI's node, the hosts' sshd and libvirtd …), and of the machine. */
function cpuNote(commands: Command[]): string {
  const names = [...new Set(commands.flatMap((c) => [...c.cpu.keys()]))];
  const spent = names.map((n) => [n, median(commands.map((c) => c.cpu.get(n) ?? 0))] as const).filter(([, s]) => s >= 0.05);
  const each = spent.sort((a, b) => b[1] - a[1]).map(([n, s]) => `${n} ${s.toFixed(2)}`);
  return `CPU s: ${each.join(", ")}; machine busy ${median(commands.map((c) => c.busy)).toFixed(2)}`;
}

export const fleetHostsBenchmark: Benchmark = {
  name: "fleet-hosts",
  async run(lab: LabEnv, workdir: string) {
    const extra: TestSshd[] = [];
    const stacks: E2eStack[] = [];
    try {
      for (let i = 0; i < HOSTS - 2; i++) extra.push(await startSshd(lab, {}));
      const ports = [lab.port, lab.port2, ...extra.map((s) => s.port)];
      const logs = [lab.sshdLog, lab.sshdLog2, ...extra.map((s) => s.log)];
      const knownHosts = knownHostsFor(lab, ports, workdir);
      const program = path.join(repoRoot, "bench", "programs", "fleet-hosts");
      const stackOn = async (n: number) => {
        const name = `benchhosts${n}-${process.pid}`;
        const e = await e2eStack(program, name, {
          prefix: name,
          ports: ports.slice(0, n).join(","),
          count: String(RESOURCES),
          address: lab.host,
          user: lab.user,
          key: lab.key,
          knownHosts,
        });
        stacks.push(e);
        return e;
      };
      const one = await stackOn(1);
      const fleet = await stackOn(HOSTS);

      const seen: Record<string, Command[]> = {};
      /** Runs one command of a stack on `n` hosts, noting its time, its logins per host and the provider's peak RSS. */
      const measure = (key: string, n: number, fn: () => Promise<unknown>) => async () => {
        const before = logs.slice(0, n).map(acceptedLogins);
        let peak = 0;
        const sampler = setInterval(() => {
          for (const mib of providerRss().values()) peak = Math.max(peak, mib);
        }, 50);
        try {
          const busyBefore = machineCpuSeconds();
          const { value: seconds, cpu } = await cpuByProcess(async () => (await timed(fn)).seconds);
          const logins = logs.slice(0, n).map((l, i) => acceptedLogins(l) - before[i]);
          (seen[key] ??= []).push({ seconds, logins, peakRssMiB: peak, cpu, busy: machineCpuSeconds() - busyBefore });
          return seconds;
        } finally {
          clearInterval(sampler);
        }
      };
      const commands = {
        preview: (e: E2eStack) => () => e.stack.preview(),
        up: (e: E2eStack) => () => e.stack.up(),
        destroy: (e: E2eStack) => () => e.stack.destroy(),
        health: (e: E2eStack) => async () => {
          const r = await runCli(["health", "--stack", e.stack.name, "--cwd", program], { env: e.env });
          if (r.code !== 0) throw new Error(`pulumi-kvm health --stack ${e.stack.name}: exit ${r.code}: ${r.stderr}${r.stdout}`);
        },
      };
      const rows: Row[] = [];
      // each round: preview, up and destroy of both stacks, taking turns
      const runs = await interleaved(ROUNDS, {
        "preview-1": measure("preview-1", 1, commands.preview(one)),
        "preview-32": measure("preview-32", HOSTS, commands.preview(fleet)),
        "up-1": measure("up-1", 1, commands.up(one)),
        "up-32": measure("up-32", HOSTS, commands.up(fleet)),
        "health-1": measure("health-1", 1, commands.health(one)),
        "health-32": measure("health-32", HOSTS, commands.health(fleet)),
        "destroy-1": measure("destroy-1", 1, commands.destroy(one)),
        "destroy-32": measure("destroy-32", HOSTS, commands.destroy(fleet)),
      });
      for (const command of ["preview", "up", "health", "destroy"] as const) {
        const single = runs[`${command}-1`];
        const many = runs[`${command}-32`];
        const logins = seen[`${command}-32`].flatMap((c) => c.logins);
        // the dynamic provider's; health runs in the CLI's own process
        const rss = (key: string) => (command === "health" ? "" : `; provider peak RSS ${Math.max(...seen[key].map((c) => c.peakRssMiB)).toFixed(0)} MiB`);
        rows.push({
          benchmark: `\`${command === "health" ? "pulumi-kvm health --stack" : `pulumi ${command}`}\` of ${RESOURCES} resources (${RESOURCES / 2} blank Volumes, ${RESOURCES / 2} shut-off VMs) over ${HOSTS} hosts vs over 1 (real CLI, as the user waits; goal ≤ 1.3)`,
          ours: `${fmtRuns(many)}; SSH logins per host per command ${Math.min(...logins)}–${Math.max(...logins)}${rss(`${command}-32`)}; ${cpuNote(seen[`${command}-32`])}`,
          baseline: `${fmtRuns(single)} on 1 host${rss(`${command}-1`)}; ${cpuNote(seen[`${command}-1`])}`,
          ratio: many.median / single.median,
          ratioOf: `${HOSTS} hosts' time / 1 host's (medians)`,
          note: {
            preview: "the engine calls check one resource at a time",
            up: "the engine calls check one resource at a time",
            health: `every host and resource the stack recorded, the hosts at once, from the second check on dialled while \`pulumi stack export\` runs (remembered from the last); the first check of each stack, with nothing remembered: ${seen["health-32"][0].seconds.toFixed(2)} s on ${HOSTS} hosts, ${seen["health-1"][0].seconds.toFixed(2)} s on 1 (${(seen["health-32"][0].seconds / seen["health-1"][0].seconds).toFixed(2)}×)`,
            destroy: "destroy calls no check",
          }[command],
        });
      }
      return rows;
    } finally {
      for (const e of stacks) {
        await e.stack.destroy().catch(() => undefined);
        await e.remove();
      }
      for (const s of extra) await s.stop();
    }
  },
};
