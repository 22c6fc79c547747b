// An Image from an http URL (a loopback server on the lab) through `pulumi up`, the
// Image's step as the engine sees it (harness.ts): download and upload run at once, so it should take little more
// than the slower of the two alone: the download drained by this client, and the
// upload of the same bytes from a local file. The parts alone are the best of two runs;
// the steps, medians of three. The note
// weighs the machine's CPU seconds of each part against its cores: on a small machine
// the parts together can need about as much CPU as the cores give in the slower one's time,
// and the same `pulumi up` from the local file shows what the download adds to the upload.
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { fileChunks } from "../provider/image/chunks";
import { openDownload } from "../provider/image/download";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, bestOfWithCpu, fmtRuns, fmtSeconds, imageStepSeconds, interleaved, randomFile, serveInChild, virshLocal } from "./harness";

export const urlBenchmark: Benchmark = {
  name: "url",
  async run(lab: LabEnv, dir: string) {
    const file = randomFile(path.join(dir, "random-1g.bin"), 1024);
    const server = await serveInChild(file);
    const pool = new HostPool();
    try {
      const download = await bestOfWithCpu(2, undefined, async () => {
        const opened = await openDownload(server.url);
        for await (const chunk of opened.body) void chunk;
      });
      const hash = await bestOfWithCpu(2, undefined, async () => {
        const h = crypto.createHash("sha256");
        for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) h.update(chunk as Buffer);
        h.digest();
      });
      const host = labHost(lab);
      const name = "bench-url-upload.raw";
      virshLocal(["vol-create-as", lab.pool, name, String(1024 * 1024 * 1024), "--format", "raw"]);
      const upload = await bestOfWithCpu(2, undefined, () =>
        pool.run(host, async (lv) => {
          const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), name);
          await lv.uploadVolume(vol, fileChunks(file, { sparse: true }), { sparse: true });
        }),
      );
      virshLocal(["vol-delete", "--pool", lab.pool, name]);
      const steps = await interleaved(3, { url: () => imageStepSeconds(lab, { url: server.url }), file: () => imageStepSeconds(lab, { path: file }) });
      const [ours, fromFile] = [steps.url.median, steps.file.median];
      const slower = Math.max(download.seconds, upload.seconds);
      const cores = os.cpus().length;
      const partsCpuTime = (download.cpu + upload.cpu + hash.cpu) / cores;
      return [
        {
          benchmark: "1 GiB Image from an http URL through `pulumi up` vs the slower of download alone and upload alone (goal ≤ 1.15)",
          ours: fmtRuns(steps.url),
          baseline: `${fmtSeconds(slower)} (download ${fmtSeconds(download.seconds)}, upload ${fmtSeconds(upload.seconds)})`,
          ratio: ours / slower,
          ratioOf: "ours / slower alone",
          note:
            `the Image's step from the engine's events; what bounds it: the machine's CPU seconds for the download alone ${download.cpu.toFixed(2)}, ` +
            `the upload alone ${upload.cpu.toFixed(2)} (libvirtd, sshd and the client), the sha256 alone ${hash.cpu.toFixed(2)}: ` +
            `together ${fmtSeconds(partsCpuTime)} of ${cores} cores' time, ${(partsCpuTime / slower).toFixed(2)}× the slower alone (measured apart, so only an estimate of what overlapping them needs); ` +
            `the same step from the local file: ${fmtRuns(steps.file)} (the URL's ${(ours / fromFile).toFixed(2)}×)`,
        },
      ];
    } finally {
      await pool.closeAll();
      server.close();
    }
  },
};
