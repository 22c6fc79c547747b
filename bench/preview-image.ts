// `pulumi preview` of a stack holding an Image from an unchanged local file, as a pull
// request's preview runs it: with a 1 GiB file against the same with a 1 MiB one, through
// the real CLI, the two stacks taking turns. The check compares the file by its sha256; a
// file whose version (device, inode, size, mtime, ctime) the upload already hashed is not
// read again, so the size of the file should not show.
import * as path from "path";
import { LabEnv, repoRoot } from "../test/support/lab";
import { e2eStack, E2eStack } from "../test/support/pulumi";
import { Benchmark, fmtRuns, interleaved, randomFile, timed } from "./harness";

const ROUNDS = 5;

export const previewImageBenchmark: Benchmark = {
  name: "preview-image",
  async run(lab: LabEnv, dir: string) {
    const stacks: E2eStack[] = [];
    try {
      const stackWith = async (mib: number) => {
        const name = `bench-preview-${mib}-${process.pid}`;
        const e = await e2eStack(path.join(repoRoot, "bench", "programs", "image"), name, {
          name,
          address: lab.host,
          port: String(lab.port),
          user: lab.user,
          key: lab.key,
          knownHosts: lab.knownHosts,
          path: randomFile(path.join(dir, `${mib}.raw`), mib),
        });
        stacks.push(e);
        await e.stack.up();
        return e;
      };
      const large = await stackWith(1024);
      const small = await stackWith(1);
      const preview = (e: E2eStack) => async () => (await timed(() => e.stack.preview())).seconds;
      const runs = await interleaved(ROUNDS, { large: preview(large), small: preview(small) });
      return [
        {
          benchmark:
            "`pulumi preview` of a stack with an Image from an unchanged 1 GiB local file vs the same with a 1 MiB file (real CLI, as the user waits; goal ≤ 1.05)",
          ours: fmtRuns(runs.large),
          baseline: fmtRuns(runs.small),
          ratio: runs.large.median / runs.small.median,
          ratioOf: "1 GiB file's preview / 1 MiB file's (medians)",
        },
      ];
    } finally {
      for (const e of stacks) {
        await e.stack.destroy().catch(() => undefined);
        await e.remove();
      }
    }
  },
};
