// 1 GiB of random data as an Image through `pulumi up`: the Image's step as the engine
// sees it (the volume's creation, the upload, the checksum; harness.ts, imageStepSeconds)
// against OpenSSH `ssh host 'cat > file'` over the same sshd and `virsh vol-upload` over
// qemu+ssh://, and libvirtd's own ingest beside them: `virsh vol-upload` on the host's
// socket, with no SSH. The runs take turns, round by round; each figure is a median with
// its spread, and so is the CPU each process spent (the provider's node, ssh, sshd,
// libvirtd): what bounds a row is read from those, not guessed.
import * as fs from "fs";
import * as path from "path";
import { LabEnv } from "../test/support/lab";
import {
  Benchmark,
  fmtRuns,
  fmtSeconds,
  imageStepSeconds,
  interleaved,
  processCpuSeconds,
  randomFile,
  run,
  Runs,
  runsOf,
  sshArgs,
  timed,
  virshLocal,
  virshSshUri,
} from "./harness";

const GiB = 1024 * 1024 * 1024;
const ROUNDS = 5;

/** The processes whose CPU each run is charged with. */
const PROCESSES = ["node", "ssh", "sshd", "libvirtd", "virsh"] as const;
type Cpu = Record<(typeof PROCESSES)[number], number>;

const cpuNow = (): Cpu => Object.fromEntries(PROCESSES.map((p) => [p, processCpuSeconds(p)])) as Cpu;

/** A measure that also records the CPU seconds each process spent during it. */
function withCpu(fn: () => Promise<number>, into: Cpu[]): () => Promise<number> {
  return async () => {
    const before = cpuNow();
    const seconds = await fn();
    const after = cpuNow();
    into.push(Object.fromEntries(PROCESSES.map((p) => [p, after[p] - before[p]])) as Cpu);
    return seconds;
  };
}

/** "node 2.31, sshd 1.10 CPU-s": the median CPU of the processes that did work. */
function cpuNote(runs: Cpu[], names: (typeof PROCESSES)[number][]): string {
  return names.map((p) => `${p} ${runsOf(runs.map((r) => r[p])).median.toFixed(2)}`).join(", ") + " CPU-s";
}

const secondsOf = (fn: () => Promise<unknown>) => async () => (await timed(fn)).seconds;

export const uploadBenchmark: Benchmark = {
  name: "upload",
  async run(lab: LabEnv, dir: string) {
    const file = randomFile(path.join(dir, "random-1g.bin"), 1024);
    const cat = path.join(lab.poolDir, "bench-cat.raw");
    const name = "bench-virsh.raw";
    virshLocal(["vol-create-as", lab.pool, name, String(GiB), "--format", "raw", "--allocation", "0"]);
    const cpu = { ours: [] as Cpu[], openssh: [] as Cpu[], local: [] as Cpu[], virsh: [] as Cpu[] };
    let r: Record<"ours" | "openssh" | "handshake" | "local" | "virsh", Runs>;
    try {
      // the file in the page cache for every side alike
      await run("cat", [file]);
      r = await interleaved(ROUNDS, {
        ours: withCpu(() => imageStepSeconds(lab, { path: file }), cpu.ours),
        openssh: withCpu(
          secondsOf(() => run("ssh", [...sshArgs(lab), `cat > ${cat}`], { input: file })),
          cpu.openssh,
        ),
        handshake: secondsOf(() => run("ssh", [...sshArgs(lab), "true"])),
        local: withCpu(
          secondsOf(() => run("virsh", ["-c", "qemu:///system", "vol-upload", "--pool", lab.pool, name, file])),
          cpu.local,
        ),
        virsh: withCpu(
          secondsOf(() => run("virsh", ["-c", virshSshUri(lab, dir), "vol-upload", "--pool", lab.pool, name, file])),
          cpu.virsh,
        ),
      });
    } finally {
      fs.rmSync(cat, { force: true });
      virshLocal(["vol-delete", "--pool", lab.pool, name]);
    }
    // OpenSSH's time less its own connection (`ssh host true`): ours connected during check
    const openssh = r.openssh.median - r.handshake.median;
    const ours = `${fmtRuns(r.ours)}; ${cpuNote(cpu.ours, ["node", "sshd", "libvirtd"])}`;
    return [
      {
        benchmark: "1 GiB Image create through `pulumi up` (the engine's step) vs OpenSSH `cat > file` over the same sshd (goal ≥ 0.95)",
        ours,
        baseline: `${fmtRuns(r.openssh)}, less its connection ${fmtSeconds(r.handshake.median)}: ${fmtSeconds(openssh)}; ${cpuNote(cpu.openssh, ["ssh", "sshd"])}`,
        ratio: openssh / r.ours.median,
        ratioOf: "OpenSSH time / ours (medians)",
      },
      {
        benchmark: "1 GiB Image create through `pulumi up` (the engine's step) vs `virsh vol-upload` over qemu+ssh (goal ≥ 1.1)",
        ours,
        baseline: `${fmtRuns(r.virsh)}; ${cpuNote(cpu.virsh, ["virsh", "ssh", "sshd", "libvirtd"])}`,
        ratio: r.virsh.median / r.ours.median,
        ratioOf: "virsh time / ours (medians)",
      },
      {
        benchmark: "Beside them: 1 GiB into libvirtd with no SSH (`virsh vol-upload` on the host's own socket)",
        ours,
        baseline: `${fmtRuns(r.local)}; ${cpuNote(cpu.local, ["virsh", "libvirtd"])}`,
        ratio: r.local.median / r.ours.median,
        ratioOf: "no-SSH time / ours (medians)",
      },
    ];
  },
};
