// A 4 GiB raw image with 10 % data: sparse upload (holes as STREAM_HOLE packets) vs
// full upload of every byte, both through the same pooled connection.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { create } from "xmlbuilder2";
import { fileChunks } from "../provider/image/chunks";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, fmtSeconds, timed } from "./harness";

const MiB = 1024 * 1024;
const SIZE = 4096 * MiB;

export const sparseBenchmark: Benchmark = {
  name: "sparse",
  async run(lab: LabEnv, dir: string) {
    const file = path.join(dir, "sparse-4g.raw");
    const fd = fs.openSync(file, "w");
    fs.ftruncateSync(fd, SIZE);
    // 10 % data: 4 MiB of random bytes at the start of every 40 MiB
    for (let at = 0; at < SIZE; at += 40 * MiB) fs.writeSync(fd, crypto.randomBytes(4 * MiB), 0, 4 * MiB, at);
    fs.closeSync(fd);
    const pool = new HostPool();
    const host = labHost(lab);
    try {
      const upload = (sparse: boolean) => pool.run(host, async (lv) => {
        const p = await lv.lookupPool(lab.pool);
        const xml = create().ele("volume").ele("name").txt(`bench-sparse-${sparse}.raw`).up().ele("capacity").txt(String(SIZE)).up()
          .ele("target").ele("format", { type: "raw" }).end();
        const vol = await lv.createVolume(p, xml);
        try {
          const t = await timed(() => lv.uploadVolume(vol, fileChunks(file, { sparse }), { sparse }));
          const info = await lv.volumeInfo(vol);
          return { ...t, allocation: Number(info.allocation) };
        } finally {
          await lv.deleteVolume(vol);
        }
      });
      const sparse = await upload(true);
      const full = await upload(false);
      return [{
        benchmark: "4 GiB raw image, 10 % data: sparse vs full upload",
        ours: `${fmtSeconds(sparse.seconds)}, ${(sparse.value.sent / MiB).toFixed(0)} MiB sent, ${(sparse.allocation / MiB).toFixed(0)} MiB allocated on the host`,
        baseline: `${fmtSeconds(full.seconds)}, ${(full.value.sent / MiB).toFixed(0)} MiB sent, ${(full.allocation / MiB).toFixed(0)} MiB allocated`,
        ratio: full.seconds / sparse.seconds, ratioOf: "full time / sparse",
      }];
    } finally {
      await pool.closeAll();
      fs.rmSync(file, { force: true });
    }
  },
};
