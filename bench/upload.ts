// 1 GiB of random data as an Image through `pulumi up`: the Image's step as the engine
// sees it (the volume's creation, the upload, the checksum; harness.ts, imageStepSeconds)
// against OpenSSH `ssh host 'cat > file'` over the same sshd and `virsh vol-upload` over
// qemu+ssh://, and libvirtd's own ingest beside them: `virsh vol-upload` on the host's
// socket, with no SSH. The runs take turns, round by round; each figure is a median with
// its spread, and so is the CPU each process spent (the provider's node, ssh, sshd,
// libvirtd): what bounds a row is read from those, not guessed.
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { LabEnv } from "../test/support/lab";
import {
  Benchmark,
  cpuByProcess,
  fmtRuns,
  fmtSeconds,
  imageStep,
  interleaved,
  profileTop,
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
const exec = promisify(execFile);
const ROUNDS = 5;

type Cpu = Map<string, number>;

/** A measure (seconds and the CPU each process spent in it) whose CPU is kept in `into`. */
function keepingCpu(fn: () => Promise<{ seconds: number; cpu: Cpu }>, into: Cpu[]): () => Promise<number> {
  return async () => {
    const { seconds, cpu } = await fn();
    into.push(cpu);
    return seconds;
  };
}

/** A command's seconds and the CPU each process spent while it ran. */
const command = (cmd: string, args: string[], opts?: { input?: string }) => async () => {
  const { value, cpu } = await cpuByProcess(async () => (await timed(() => run(cmd, args, opts))).seconds);
  return { seconds: value, cpu };
};

/** "node 1.52, sshd 0.61 CPU-s": the median CPU of those processes over the runs. */
function cpuNote(runs: Cpu[], names: string[]): string {
  return names.map((p) => `${p} ${runsOf(runs.map((r) => r.get(p) ?? 0)).median.toFixed(2)}`).join(", ") + " CPU-s";
}

/**
 * The Image create's upload path alone (bench/upload-profile.ts) in a node process under
 * V8's profiler: where the client's CPU goes, per thread, for the upload's window only.
 */
async function profiledUpload(lab: LabEnv, dir: string, file: string): Promise<string> {
  const out = path.join(dir, "profile");
  const volume = "bench-profile.raw";
  virshLocal(["vol-create-as", lab.pool, volume, String(GiB), "--format", "raw", "--allocation", "0"]);
  try {
    const { stdout } = await exec(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${out}`, path.join(__dirname, "upload-profile.js"), file, volume]);
    const window = JSON.parse(stdout) as { start: number; end: number };
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 frames, encrypts and sends; the other hashes
    const threads = fs.readdirSync(out).map((f) => ({ thread: Number(f.split(".")[4]), file: path.join(out, f) }));
    const seconds = (window.end - window.start) / 1e6;
    const describe = ({ thread, file: f }: { thread: number; file: string }) => {
      const { busyShare, top } = profileTop(f, window, thread === 0 ? 6 : 2);
      return `${thread === 0 ? "main thread" : "hashing thread"} busy ${(busyShare * seconds).toFixed(2)} s: ${top.map((t) => `${t.name} ${(t.share * 100).toFixed(0)} %`).join(", ")}`;
    };
    return `the upload alone under V8's profiler, ${fmtSeconds(seconds)}: ${threads
      .sort((a, b) => a.thread - b.thread)
      .map(describe)
      .join("; ")}`;
  } finally {
    virshLocal(["vol-delete", "--pool", lab.pool, volume]);
  }
}

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
        ours: keepingCpu(() => imageStep(lab, { path: file }), cpu.ours),
        openssh: keepingCpu(command("ssh", [...sshArgs(lab), `cat > ${cat}`], { input: file }), cpu.openssh),
        handshake: async () => (await command("ssh", [...sshArgs(lab), "true"])()).seconds,
        local: keepingCpu(command("virsh", ["-c", "qemu:///system", "vol-upload", "--pool", lab.pool, name, file]), cpu.local),
        virsh: keepingCpu(command("virsh", ["-c", virshSshUri(lab, dir), "vol-upload", "--pool", lab.pool, name, file]), cpu.virsh),
      });
    } finally {
      fs.rmSync(cat, { force: true });
      virshLocal(["vol-delete", "--pool", lab.pool, name]);
    }
    const profile = await profiledUpload(lab, dir, file);
    // OpenSSH's time less its own connection (`ssh host true`): ours connected during check
    const openssh = r.openssh.median - r.handshake.median;
    // the provider's node (its hashing thread included), and the host's side
    const ours = `${fmtRuns(r.ours)}; ${cpuNote(cpu.ours, ["node", "sshd", "libvirtd"])}`;
    return [
      {
        benchmark: "1 GiB Image create through `pulumi up` (the engine's step) vs OpenSSH `cat > file` over the same sshd (goal ≥ 0.95)",
        ours,
        baseline: `${fmtRuns(r.openssh)}, less its connection ${fmtSeconds(r.handshake.median)}: ${fmtSeconds(openssh)}; ${cpuNote(cpu.openssh, ["ssh", "sshd", "cat"])}`,
        ratio: openssh / r.ours.median,
        ratioOf: "OpenSSH time / ours (medians)",
        note: profile,
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
