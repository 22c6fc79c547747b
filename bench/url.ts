// An Image from an http URL (a loopback server on the lab) through `pulumi up`, Pulumi's
// start-up subtracted: download and upload run at once, so it should take little more
// than the slower of the two alone: the download drained by this client, and the
// upload of the same bytes from a local file. Each the best of a few runs.
import * as path from "path";
import { fileChunks } from "../provider/image/chunks";
import { openDownload } from "../provider/image/download";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, bestOf, fmtSeconds, imageUpSeconds, randomFile, serveInChild, timed, virshLocal } from "./harness";
import { startupSeconds } from "./upload";

export const urlBenchmark: Benchmark = {
  name: "url",
  async run(lab: LabEnv, dir: string) {
    const file = randomFile(path.join(dir, "random-1g.bin"), 1024);
    const server = await serveInChild(file);
    const pool = new HostPool();
    try {
      const download = await bestOf(2, async () => (await timed(async () => {
        const opened = await openDownload(server.url);
        for await (const chunk of opened.body) void chunk;
      })).seconds);
      const host = labHost(lab);
      const name = "bench-url-upload.raw";
      virshLocal(["vol-create-as", lab.pool, name, String(1024 * 1024 * 1024), "--format", "raw"]);
      const upload = await bestOf(2, async () => (await timed(() => pool.run(host, async (lv) => {
        const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), name);
        await lv.uploadVolume(vol, fileChunks(file, { sparse: true }), { sparse: true });
      }))).seconds);
      virshLocal(["vol-delete", "--pool", lab.pool, name]);
      const startup = await startupSeconds(lab, dir);
      const ours = (await bestOf(3, () => imageUpSeconds(lab, { url: server.url }))) - startup;
      const slower = Math.max(download, upload);
      return [{
        benchmark: "1 GiB Image from an http URL through `pulumi up` vs the slower of download alone and upload alone (goal ≤ 1.15)",
        ours: fmtSeconds(ours),
        baseline: `${fmtSeconds(slower)} (download ${fmtSeconds(download)}, upload ${fmtSeconds(upload)})`,
        ratio: ours / slower, ratioOf: "ours / slower alone",
        note: `Pulumi start-up ${fmtSeconds(startup)} subtracted`,
      }];
    } finally {
      await pool.closeAll();
      server.close();
    }
  },
};
