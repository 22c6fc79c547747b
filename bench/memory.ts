// Peak memory of making a 4 GiB Image (10 % data), in this process (its threads
// included; the http server runs in another): from a local file and from an http URL.
// Buffers are reused and the download runs at the upload's pace, so the growth stays
// far below the image's size whatever it is.
import { imageProvider, ImageInputs } from "../provider/kinds/image/lifecycle";
import { checked } from "../test/support/checked";
import { labHost } from "../test/support/hosts";
import { LabEnv } from "../test/support/lab";
import { Benchmark, serveInChild, withPeakRss } from "./harness";
import { sparseFile } from "./sparse";

export const memoryBenchmark: Benchmark = {
  name: "memory",
  async run(lab: LabEnv, dir: string) {
    const { file } = sparseFile(dir);
    const server = await serveInChild(file);
    try {
      const peak = async (name: string, source: ImageInputs["source"]) => {
        const inputs = await checked(imageProvider, { host: labHost(lab), name, source } as ImageInputs);
        const made = await withPeakRss(() => imageProvider.create(inputs));
        await imageProvider.delete(made.value.id, made.value.outs);
        return made.peakMiB;
      };
      const fromFile = await peak(`bench-mem-file-${process.pid}`, { path: file });
      const fromUrl = await peak(`bench-mem-url-${process.pid}`, { url: server.url });
      const worst = Math.max(fromFile, fromUrl);
      return [
        {
          benchmark: "peak RSS growth making a 4 GiB Image (goal ≤ 64 MiB)",
          ours: `from a file ${fromFile.toFixed(0)} MiB, from an http URL ${fromUrl.toFixed(0)} MiB`,
          baseline: "4096 MiB (the image's size)",
          ratio: 4096 / worst,
          ratioOf: "image size / our worst peak growth",
        },
      ];
    } finally {
      server.close();
    }
  },
};
