// The fleet example with the real Pulumi CLI: `pulumi up` of 10 VMs over two hosts,
// counting SSH handshakes per host (sshd logins), and a preview counting health probes
// per host (libvirt version calls in the provider's log).
import * as path from "path";
import { acceptedLogins } from "../test/support/hosts";
import { fleetLabConfig, LabEnv, repoRoot } from "../test/support/lab";
import { e2eStack, probesPerHost } from "../test/support/pulumi";
import { Benchmark, fmtSeconds, timed } from "./harness";

const COUNT = 10;

export const fleetBenchmark: Benchmark = {
  name: "fleet",
  async run(lab: LabEnv) {
    const e = await e2eStack(
      path.join(repoRoot, "examples", "fleet"),
      `benchfleet${process.pid}`,
      { ...fleetLabConfig(), count: String(COUNT) },
      { PULUMI_KVM_LOG: "1" },
    );
    try {
      const logins = () => [acceptedLogins(lab.sshdLog), acceptedLogins(lab.sshdLog2)];
      const before = logins();
      const up = await timed(() => e.stack.up());
      const afterUp = logins();
      const handshakes = afterUp.map((n, i) => n - before[i]);
      const out: string[] = [];
      const preview = await e.stack.preview({ onOutput: (s) => out.push(s) });
      const probes = probesPerHost(out.join("") + preview.stdout + preview.stderr);
      const probeCounts = Object.values(probes);
      const resourcesPerHost = 1 + COUNT / 2 + COUNT / 2;
      const down = await timed(() => e.stack.destroy());
      return [
        {
          benchmark: `fleet \`pulumi up\` of ${COUNT} VMs over 2 hosts (real CLI)`,
          ours: `${fmtSeconds(up.seconds)}; SSH handshakes per host ${handshakes.join(" / ")}`,
          baseline: `${resourcesPerHost} resources per host (one connection each, as per-resource dialing would open)`,
          ratio: resourcesPerHost / Math.max(1, Math.max(...handshakes)),
          ratioOf: "resources per host / SSH handshakes per host",
          note: `destroy ${fmtSeconds(down.seconds)}`,
        },
        {
          benchmark: `preview of the ${COUNT}-VM fleet`,
          ours: `health probes per host: ${
            Object.entries(probes)
              .map(([h, n]) => `${h} ${n}`)
              .join(", ") || "none logged"
          }`,
          baseline: `${resourcesPerHost} resource checks per host`,
          ratio: resourcesPerHost / Math.max(1, ...probeCounts),
          ratioOf: "checks per host / probes per host",
        },
      ];
    } finally {
      await e.stack.destroy().catch(() => undefined);
      await e.remove();
    }
  },
};
