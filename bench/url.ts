// An Image from an http URL (a loopback server on the lab) through `pulumi up`, Pulumi's
// start-up subtracted: download and upload run at once, so it should take little more
// than the slower of the two alone: the download drained by this client, and the
// upload of the same bytes from a local file.
import * as path from "path";
import { fileChunks } from "../provider/image/chunks";
import { openDownload } from "../provider/image/download";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { FileServer } from "../test/support/http-server";
import { LabEnv } from "../test/support/lab";
import { Benchmark, fmtSeconds, imageUpSeconds, randomFile, timed, virshLocal } from "./harness";
import { startupSeconds } from "./upload";

export const urlBenchmark: Benchmark = {
  name: "url",
  async run(lab: LabEnv, dir: string) {
    const file = randomFile(path.join(dir, "random-1g.bin"), 1024);
    const server = await FileServer.start(file);
    const pool = new HostPool();
    try {
      const download = await timed(async () => {
        const opened = await openDownload(server.url("random-1g.bin"));
        for await (const chunk of opened.body) void chunk;
      });
      const host = labHost(lab);
      const name = "bench-url-upload.raw";
      virshLocal(["vol-create-as", lab.pool, name, String(1024 * 1024 * 1024), "--format", "raw"]);
      const upload = await timed(() => pool.run(host, async (lv) => {
        const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), name);
        await lv.uploadVolume(vol, fileChunks(file, { sparse: true }), { sparse: true });
      }));
      virshLocal(["vol-delete", "--pool", lab.pool, name]);
      const startup = await startupSeconds(lab, dir);
      const ours = (await imageUpSeconds(lab, { url: server.url("random-1g.bin") })) - startup;
      const slower = Math.max(download.seconds, upload.seconds);
      return [{
        benchmark: "1 GiB Image from an http URL through `pulumi up` vs the slower of download alone and upload alone (goal ≤ 1.15)",
        ours: fmtSeconds(ours),
        baseline: `${fmtSeconds(slower)} (download ${fmtSeconds(download.seconds)}, upload ${fmtSeconds(upload.seconds)})`,
        ratio: ours / slower, ratioOf: "ours / slower alone",
        note: `Pulumi start-up ${fmtSeconds(startup)} subtracted`,
      }];
    } finally {
      await pool.closeAll();
      await server.close();
    }
  },
};
