// 1 GiB of random data as an Image through `pulumi up`: everything the user waits for
// (check, the volume's creation, the upload, the checksum) minus Pulumi's own start-up
// (the same program with a 1 MiB image), against OpenSSH `ssh host 'cat > file'` and
// `virsh vol-upload` over qemu+ssh:// of the same file on the same lab. Each side is
// the best of a few runs (ours three: its figure is a difference of two `pulumi up`s).
import * as fs from "fs";
import * as path from "path";
import { LabEnv } from "../test/support/lab";
import { Benchmark, bestOf, fmtSeconds, imageUpSeconds, randomFile, run, sshArgs, timed, virshLocal, virshSshUri } from "./harness";

const GiB = 1024 * 1024 * 1024;

/** Pulumi's start-up and a tiny image: the best of three runs (the first warms caches). */
export async function startupSeconds(lab: LabEnv, dir: string): Promise<number> {
  const tiny = randomFile(path.join(dir, "random-1m.bin"), 1);
  return bestOf(3, () => imageUpSeconds(lab, { path: tiny }));
}

export const uploadBenchmark: Benchmark = {
  name: "upload",
  async run(lab: LabEnv, dir: string) {
    const file = randomFile(path.join(dir, "random-1g.bin"), 1024);
    const startup = await startupSeconds(lab, dir);
    const ours = (await bestOf(3, () => imageUpSeconds(lab, { path: file }))) - startup;

    const cat = "bench-cat.raw";
    const openssh = await bestOf(2, async () => (await timed(() => run("ssh", [...sshArgs(lab), `cat > ${lab.poolDir}/${cat}`], { input: file }))).seconds);
    fs.rmSync(path.join(lab.poolDir, cat), { force: true });

    const name = "bench-virsh.raw";
    virshLocal(["vol-create-as", lab.pool, name, String(GiB), "--format", "raw"]);
    const virsh = await bestOf(2, async () => (await timed(() => run("virsh", ["-c", virshSshUri(lab, dir), "vol-upload", "--pool", lab.pool, name, file]))).seconds);
    virshLocal(["vol-delete", "--pool", lab.pool, name]);

    const note = `ours: \`pulumi up\` minus ${fmtSeconds(startup)} of Pulumi start-up (the same up of a 1 MiB image)`;
    return [
      { benchmark: "1 GiB Image through `pulumi up` vs OpenSSH `cat > file` (goal ≥ 0.95)", ours: fmtSeconds(ours), baseline: fmtSeconds(openssh),
        ratio: openssh / ours, ratioOf: "OpenSSH time / ours", note },
      { benchmark: "1 GiB Image through `pulumi up` vs `virsh vol-upload` over qemu+ssh (goal ≥ 1.1)", ours: fmtSeconds(ours), baseline: fmtSeconds(virsh),
        ratio: virsh / ours, ratioOf: "virsh time / ours", note },
    ];
  },
};
