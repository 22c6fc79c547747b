// A 4 GiB raw image with 10 % data: our sparse upload (holes as STREAM_HOLE packets)
// against `virsh vol-upload --sparse` over qemu+ssh:// of the same file, both the
// transfer alone, each the best of two runs; and what each leaves allocated on the host.
// The note has what bounds ours: reading the file's data (its holes are skipped with
// SEEK_DATA through fs-ext, as virsh does) and sending its data alone.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { fileChunks, fileData } from "../provider/image/chunks";
import { holesReported } from "../provider/image/file-extents";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, bestOf, fmtSeconds, run, timed, virshLocal, virshSshUri } from "./harness";

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
    const names = { ours: "bench-sparse-ours.raw", virsh: "bench-sparse-virsh.raw" };
    try {
      for (const n of Object.values(names)) virshLocal(["vol-create-as", lab.pool, n, String(SIZE), "--format", "raw"]);
      // both read the file once first, so neither pays for the page cache alone
      for await (const c of fileChunks(file, { sparse: true })) void c;
      let sent = 0;
      const ours = await bestOf(
        2,
        async () =>
          (
            await timed(() =>
              pool.run(host, async (lv) => {
                const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), names.ours);
                sent = (await lv.uploadVolume(vol, fileChunks(file, { sparse: true }), { sparse: true })).sent;
              }),
            )
          ).seconds,
      );
      const virsh = await bestOf(
        2,
        async () => (await timed(() => run("virsh", ["-c", virshSshUri(lab, dir), "vol-upload", "--sparse", "--pool", lab.pool, names.virsh, file]))).seconds,
      );
      const [oursAlloc, virshAlloc] = [allocation(names.ours, lab), allocation(names.virsh, lab)];
      const reading = await bestOf(
        2,
        async () =>
          (
            await timed(async () => {
              for await (const b of fileData(file, { reuse: true })) void b;
            })
          ).seconds,
      );
      const dataOnly = path.join(dir, "data-only.raw");
      fs.writeFileSync(dataOnly, crypto.randomBytes(Math.min(sent, 512 * MiB)));
      const sending = await bestOf(
        2,
        async () =>
          (
            await timed(() =>
              pool.run(host, async (lv) => {
                const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), names.ours);
                await lv.uploadVolume(vol, fileChunks(dataOnly, { sparse: false }));
              }),
            )
          ).seconds,
      );
      return [
        {
          benchmark: "4 GiB raw image, 10 % data: sparse upload vs `virsh vol-upload --sparse` (goal ≥ 1.5; allocation ≤ 1.1× data)",
          ours: `${fmtSeconds(ours)}, ${(sent / MiB).toFixed(0)} MiB sent, ${(oursAlloc / MiB).toFixed(0)} MiB allocated (${(oursAlloc / dataBytes).toFixed(2)}× the data)`,
          baseline: `${fmtSeconds(virsh)}, ${(virshAlloc / MiB).toFixed(0)} MiB allocated`,
          ratio: virsh / ours,
          ratioOf: "virsh time / ours",
          note: `what bounds ours: reading the 4 GiB file alone ${fmtSeconds(reading)} (${holesReported() ? "holes skipped with SEEK_DATA" : "holes read as zeros: fs-ext is not installed"}), sending its ${(sent / MiB).toFixed(0)} MiB of data alone ${fmtSeconds(sending)}; the two overlap`,
        },
      ];
    } finally {
      for (const n of Object.values(names)) {
        try {
          virshLocal(["vol-delete", "--pool", lab.pool, n]);
        } catch {
          /* not made */
        }
      }
      await pool.closeAll();
    }
  },
};
