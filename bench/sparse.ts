// A 4 GiB raw image with 10 % data as an Image through `pulumi up` (holes as STREAM_HOLE
// packets; the Image's step as the engine sees it) against what gives the same guarantee
// with the standard tools: `virsh vol-upload --sparse` over qemu+ssh:// and `openssl dgst
// -sha256` of the file. Medians of three interleaved rounds, and what each leaves
// allocated on the host. The note has what bounds ours, each part alone: reading the
// file's data (holes skipped with SEEK_DATA through fs-ext, as virsh does), hashing the
// whole image, sending its data.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { fileChunks, fileData } from "../provider/image/chunks";
import { holesReported } from "../provider/image/file-extents";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { sha256File } from "../provider/image/file-digest";
import { Benchmark, bestOf, fmtRuns, fmtSeconds, imageStepSeconds, interleaved, run, timed, virshLocal, virshSshUri } from "./harness";

const MiB = 1024 * 1024;
const SIZE = 4096 * MiB;

/** 4 GiB, 10 % data: 4 MiB of random bytes at the start of every 40 MiB. */
export function sparseFile(dir: string): { file: string; dataBytes: number } {
  const file = path.join(dir, "sparse-4g.raw");
  const fd = fs.openSync(file, "w");
  fs.ftruncateSync(fd, SIZE);
  let dataBytes = 0;
  for (let at = 0; at < SIZE; at += 40 * MiB) dataBytes += fs.writeSync(fd, crypto.randomBytes(4 * MiB), 0, 4 * MiB, at);
  fs.closeSync(fd);
  return { file, dataBytes };
}

const allocation = (name: string, lab: LabEnv) => Number(/Allocation:\s+(\d+)/.exec(virshLocal(["vol-info", "--pool", lab.pool, name, "--bytes"]))![1]);

export const sparseBenchmark: Benchmark = {
  name: "sparse",
  async run(lab: LabEnv, dir: string) {
    const { file, dataBytes } = sparseFile(dir);
    const pool = new HostPool();
    const host = labHost(lab);
    const name = "bench-sparse-virsh.raw";
    const allocated = { ours: 0, virsh: 0 };
    try {
      virshLocal(["vol-create-as", lab.pool, name, String(SIZE), "--format", "raw", "--allocation", "0"]);
      // both read the file once first, so neither pays for the page cache alone
      for await (const c of fileChunks(file, { sparse: true })) void c;
      // the same guarantee on both sides: the bytes on the host, and the sha256 of the whole image
      const r = await interleaved(3, {
        ours: () => imageStepSeconds(lab, { path: file }, { afterUp: (volume) => (allocated.ours = allocation(volume, lab)) }),
        virsh: async () =>
          (
            await timed(async () => {
              await run("virsh", ["-c", virshSshUri(lab, dir), "vol-upload", "--sparse", "--pool", lab.pool, name, file]);
              await run("openssl", ["dgst", "-sha256", file]);
            })
          ).seconds,
      });
      allocated.virsh = allocation(name, lab);
      // what bounds ours, each alone: reading the file's data, hashing all 4 GiB as the provider does, sending the data
      const reading = await bestOf(
        2,
        async () =>
          (
            await timed(async () => {
              for await (const b of fileData(file, { reuse: true })) void b;
            })
          ).seconds,
      );
      // once: the provider keeps a file version's digest
      const hashing = (await timed(() => sha256File(file))).seconds;
      let sent = 0;
      for await (const c of fileChunks(file, { sparse: true })) if ("data" in c) sent += c.data.length;
      const dataOnly = path.join(dir, "data-only.raw");
      fs.writeFileSync(dataOnly, crypto.randomBytes(Math.min(sent, 512 * MiB)));
      const sending = await bestOf(
        2,
        async () =>
          (
            await timed(() =>
              pool.run(host, async (lv) => {
                const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), name);
                await lv.uploadVolume(vol, fileChunks(dataOnly, { sparse: false }));
              }),
            )
          ).seconds,
      );
      return [
        {
          benchmark:
            "4 GiB raw Image, 10 % data, through `pulumi up` (the engine's step) vs `virsh vol-upload --sparse` + `openssl dgst -sha256` (goal ≥ 1.2; allocation ≤ 1.1× data)",
          ours: `${fmtRuns(r.ours)}, ${(sent / MiB).toFixed(0)} MiB sent, ${(allocated.ours / MiB).toFixed(0)} MiB allocated (${(allocated.ours / dataBytes).toFixed(2)}× the data)`,
          baseline: `${fmtRuns(r.virsh)}, ${(allocated.virsh / MiB).toFixed(0)} MiB allocated`,
          ratio: r.virsh.median / r.ours.median,
          ratioOf: "virsh + openssl time / ours (medians)",
          note: `what bounds ours, each alone: reading the 4 GiB file ${fmtSeconds(reading)} (${holesReported() ? "holes skipped with SEEK_DATA" : "holes read as zeros: fs-ext is not installed"}), its sha256 (holes hashed as zeros) ${fmtSeconds(hashing)}, sending its ${(sent / MiB).toFixed(0)} MiB of data ${fmtSeconds(sending)}`,
        },
      ];
    } finally {
      try {
        virshLocal(["vol-delete", "--pool", lab.pool, name]);
      } catch {
        /* not made */
      }
      await pool.closeAll();
    }
  },
};
