// 200 sequential small calls over one pooled connection vs 200 `virsh -c qemu+ssh://`
// invocations (each a new SSH connection, as a script calling virsh pays).
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, fmtSeconds, run, timed, virshSshUri } from "./harness";

const N = 200;

export const callsBenchmark: Benchmark = {
  name: "calls",
  async run(lab: LabEnv, dir: string) {
    const pool = new HostPool();
    const host = labHost(lab);
    try {
      const ours = await timed(async () => {
        for (let i = 0; i < N; i++) await pool.run(host, (lv) => lv.lookupPool(lab.pool));
      });
      const uri = virshSshUri(lab, dir);
      const virsh = await timed(async () => {
        for (let i = 0; i < N; i++) await run("virsh", ["-q", "-c", uri, "pool-uuid", lab.pool]);
      });
      return [
        {
          benchmark: `${N} sequential pool lookups: one pooled connection vs ${N} virsh qemu+ssh calls`,
          ours: `${fmtSeconds(ours.seconds)} (${((ours.seconds / N) * 1000).toFixed(2)} ms/call, dial included)`,
          baseline: `${fmtSeconds(virsh.seconds)} (${((virsh.seconds / N) * 1000).toFixed(0)} ms/call)`,
          ratio: virsh.seconds / ours.seconds,
          ratioOf: "virsh time / ours",
        },
      ];
    } finally {
      await pool.closeAll();
    }
  },
};
