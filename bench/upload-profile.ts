// `node --cpu-prof --cpu-prof-dir=DIR upload-profile.js FILE VOLUME`: what the Image create
// runs for a local file, alone (the file opened as an image, sent sparse into the lab's
// volume VOLUME, its digests taken), in a process of its own profiled by V8. Prints the
// upload's window on the profile's clock (µs), so the profile is read for that window only.
import { openImage } from "../provider/image/source";
import { uploadChunks } from "../provider/image/chunks";
import { HostPool } from "../provider/pool/host-pool";
import { labHost } from "../test/support/hosts";
import { labEnv } from "../test/support/lab";

const micros = () => Number(process.hrtime.bigint() / 1000n);

async function main(): Promise<void> {
  const [file, volume] = process.argv.slice(2);
  const lab = labEnv();
  const pool = new HostPool();
  try {
    await pool.run(labHost(lab), async (lv) => {
      const vol = await lv.lookupVolume(await lv.lookupPool(lab.pool), volume);
      const start = micros();
      const image = await openImage({ path: file }, "lab");
      await lv.uploadVolume(vol, uploadChunks(image.body, { sparse: true }), { sparse: true });
      await image.digests();
      process.stdout.write(`${JSON.stringify({ start, end: micros() })}\n`);
    });
  } finally {
    await pool.closeAll();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
