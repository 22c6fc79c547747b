// The upload over a thin link: 3 MB/s with 30 ms each way (bench/thin-link.ts, a process
// of its own in front of the lab's sshd), 32 MiB of random data as an Image through
// `pulumi up` (the engine's step) against OpenSSH `cat > file` through the same link.
// Medians of three interleaved rounds; OpenSSH's own connection (`ssh host true` through
// the link) is taken off its time, as ours connected during check.
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { LabEnv } from "../test/support/lab";
import { Benchmark, fmtRuns, fmtSeconds, imageStepSeconds, interleaved, randomFile, run, sshArgs, timed } from "./harness";

const RATE = 3_000_000;
const DELAY_MS = 30;

/** The lab's sshd behind the thin link: its port, and a known_hosts that names the lab's host key at it. */
async function thinLink(lab: LabEnv, dir: string): Promise<{ lab: LabEnv; close(): void }> {
  const child = spawn(process.execPath, [path.join(__dirname, "thin-link.js"), String(lab.port), String(RATE), String(DELAY_MS)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(Number(String(d).trim())));
    child.once("exit", (code) => reject(new Error(`thin-link exited ${code}`)));
  });
  const knownHosts = path.join(dir, "known_hosts-thin");
  fs.writeFileSync(knownHosts, fs.readFileSync(lab.knownHosts, "utf8").replaceAll(`[${lab.host}]:${lab.port}`, `[${lab.host}]:${port}`));
  return { lab: { ...lab, port, knownHosts }, close: () => child.kill() };
}

export const thinBenchmark: Benchmark = {
  name: "thin",
  async run(lab: LabEnv, dir: string) {
    const file = randomFile(path.join(dir, "random-32m.bin"), 32);
    const link = await thinLink(lab, dir);
    const cat = path.join(lab.poolDir, "bench-thin-cat.raw");
    try {
      const r = await interleaved(3, {
        ours: () => imageStepSeconds(link.lab, { path: file }),
        openssh: async () => (await timed(() => run("ssh", [...sshArgs(link.lab), `cat > ${cat}`], { input: file }))).seconds,
        handshake: async () => (await timed(() => run("ssh", [...sshArgs(link.lab), "true"]))).seconds,
      });
      const openssh = r.openssh.median - r.handshake.median;
      return [
        {
          benchmark: `32 MiB Image create through \`pulumi up\` (the engine's step) over a thin link (${RATE / 1e6} MB/s, ${DELAY_MS} ms each way) vs OpenSSH \`cat > file\` through it (goal ≤ 1.05)`,
          ours: fmtRuns(r.ours),
          baseline: `${fmtRuns(r.openssh)}, less its connection ${fmtSeconds(r.handshake.median)}: ${fmtSeconds(openssh)}`,
          ratio: r.ours.median / openssh,
          ratioOf: "ours / OpenSSH time (medians)",
          note: `the link alone moves 32 MiB in ${fmtSeconds((32 * 1024 * 1024) / RATE)}`,
        },
      ];
    } finally {
      link.close();
      fs.rmSync(cat, { force: true });
    }
  },
};
