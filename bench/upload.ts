// 1 GiB upload: the pure-TypeScript client over one SSH connection vs OpenSSH
// `ssh host 'cat > file'` vs `virsh vol-upload` over qemu+ssh://, on the same lab.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { create } from "xmlbuilder2";
import { fileChunks } from "../provider/image/chunks";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, fmtSeconds, run, sshArgs, timed, virshLocal, virshSshUri, withPeakRss } from "./harness";

const GiB = 1024 * 1024 * 1024;

export const uploadBenchmark: Benchmark = {
  name: "upload",
  async run(lab: LabEnv, dir: string) {
    const file = path.join(dir, "random-1g.bin");
    const fd = fs.openSync(file, "w");
    for (let i = 0; i < 64; i++) fs.writeSync(fd, crypto.randomBytes(16 * 1024 * 1024));
    fs.closeSync(fd);
    const pool = new HostPool();
    const host = labHost(lab);
    const names = { ours: "bench-ours.raw", virsh: "bench-virsh.raw", cat: "bench-cat.raw" };
    try {
      await pool.connection(host); // warm: the pooled link is what resources use
      const xml = (name: string) => create().ele("volume").ele("name").txt(name).up().ele("capacity").txt(String(GiB)).up()
        .ele("target").ele("format", { type: "raw" }).end();
      const vol = await pool.run(host, async (lv) => lv.createVolume(await lv.lookupPool(lab.pool), xml(names.ours)));
      const ours = await withPeakRss(() => timed(() => pool.run(host, (lv) => lv.uploadVolume(vol, fileChunks(file, { sparse: false })))));
      await pool.run(host, (lv) => lv.deleteVolume(vol));

      const openssh = await timed(() => run("ssh", [...sshArgs(lab), `cat > ${lab.poolDir}/${names.cat}`], { input: file }));
      fs.rmSync(path.join(lab.poolDir, names.cat), { force: true });

      virshLocal(["vol-create-as", lab.pool, names.virsh, String(GiB), "--format", "raw"]);
      const virsh = await timed(() => run("virsh", ["-c", virshSshUri(lab, dir), "vol-upload", "--pool", lab.pool, names.virsh, file]));
      virshLocal(["vol-delete", "--pool", lab.pool, names.virsh]);

      return [
        { benchmark: "1 GiB upload vs OpenSSH `cat > file`", ours: fmtSeconds(ours.value.seconds), baseline: fmtSeconds(openssh.seconds),
          ratio: openssh.seconds / ours.value.seconds, ratioOf: "OpenSSH time / ours", note: `ours: peak RSS growth ${ours.peakMiB.toFixed(0)} MiB` },
        { benchmark: "1 GiB upload vs `virsh vol-upload` (qemu+ssh)", ours: fmtSeconds(ours.value.seconds), baseline: fmtSeconds(virsh.seconds),
          ratio: virsh.seconds / ours.value.seconds, ratioOf: "virsh time / ours" },
      ];
    } finally {
      await pool.closeAll();
      fs.rmSync(file, { force: true });
    }
  },
};
