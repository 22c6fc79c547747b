// The Image resource: a base disk image uploaded into a storage pool.
import { checkNames, declaredDiff } from "../../resources/collisions";
import { checkSource } from "./source-check";
import * as crypto from "crypto";
import * as fs from "fs";
import { explain, KvmError } from "../../errors";
import { uploadChunks } from "../../image/chunks";
import { HEAD_BYTES, parseImageHeader, readImageHeader, UnsupportedImageFormat } from "../../image/header";
import { announcedLength, displayUrl } from "../../image/download";
import { sha256File } from "../../image/file-digest";
import { downloadFailure, ImageSource, openImage, sourceFile, verifyDigests } from "../../image/source";
import { volumeXml } from "../../xml/volume";
import { checkHostHealth } from "../../resources/host-check";
import { Failures } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import { progressReporter } from "../../resources/progress";
import {
  checkStorageInputs,
  deleteVolume,
  describeReread,
  describeVolume,
  domainsUsing,
  poolForNewVolume,
  readVolume,
  volumeClaims,
  volumesBackedBy,
} from "../../resources/storage";
import { processContext, ResourceContext } from "../../resources/context";
import { ResourceProvider } from "../../resources/types";
import { imageDeclaration, ImageInputs, ImageOutputs } from "./declaration";

export type { ImageInputs, ImageOutputs } from "./declaration";
import { Making } from "../../resources/rollback";
import { refuseAdoption } from "../../resources/adopt";
import { interruptible } from "../../resources/interrupt";
import { headMark, mtimeId, newHeadToken, proves, sealed, VolumeIdentity } from "../volume/identity";
import { writeVolumeBytes } from "../volume/write";
import { holdHead } from "../../image/held-head";

/** The outputs of an uploaded image: its inputs as checked, the volume, the header's format, the bytes' sha256. */
export function imageOutputs(
  inputs: ImageInputs,
  made: { path: string; key: string; capacityBytes: number },
  format: ImageOutputs["format"],
  sha256: string,
  identity: VolumeIdentity,
): ImageOutputs {
  return { ...inputs, kvmKind: "Image", path: made.path, key: made.key, format, capacityBytes: made.capacityBytes, sha256, identity };
}

/**
 * Takes over an image volume already in the pool, when its bytes are the source's (by
 * sha256, read back from the host); undefined when there is none, to upload as usual.
 */
async function adoptImage(
  ctx: ResourceContext,
  inputs: ImageInputs,
  host: string,
  signal: AbortSignal,
): Promise<{ id: string; outs: ImageOutputs } | undefined> {
  const what = `image ${inputs.pool}/${inputs.name}`;
  try {
    return await ctx.pool.run(
      inputs.host,
      async (lv) => {
        const { existing } = await poolForNewVolume(lv, inputs.host, inputs.pool, inputs.name, true);
        if (!existing) return undefined;
        const expected = inputs.source.sha256 ?? (inputs.source.path ? await sha256File(sourceFile(inputs.source.path)) : undefined);
        const expected512 = inputs.source.sha512;
        if (!expected && !expected512) {
          throw new KvmError("permanent", `cannot adopt ${what}: its bytes cannot be compared with a URL source without a checksum`, {
            host,
            property: "source.sha256",
            fix: "Give source.sha256 (the image's sha256sum), so the volume's content can be proven to be that image; nothing was changed",
          });
        }
        const hash = crypto.createHash("sha256");
        const hash512 = expected512 ? crypto.createHash("sha512") : undefined;
        const head: Buffer[] = [];
        let size = 0;
        for await (const chunk of lv.downloadVolume(existing, { signal })) {
          hash.update(chunk);
          hash512?.update(chunk);
          if (size < HEAD_BYTES) head.push(chunk.subarray(0, HEAD_BYTES - size));
          size += chunk.length;
        }
        const onHost = hash.digest("hex");
        if (expected && onHost !== expected)
          throw refuseAdoption(host, what, [{ property: "source", onHost: `sha256 ${onHost}`, inProgram: `sha256 ${expected}` }]);
        const onHost512 = hash512?.digest("hex");
        if (expected512 && onHost512 !== expected512)
          throw refuseAdoption(host, what, [{ property: "source", onHost: `sha512 ${onHost512}`, inProgram: `sha512 ${expected512}` }]);
        // the format from the bytes just proven to be the source's, never libvirt's probe
        const { format } = parseImageHeader(Buffer.concat(head), size);
        const d = await describeVolume(lv, existing);
        const source = inputs.source.path ? { ...inputs.source, sha256: onHost } : inputs.source;
        const outs = {
          ...imageOutputs({ ...inputs, source }, { ...d, key: d.key ?? existing.key }, format, onHost, sealed(d)),
          ...(onHost512 ? { sha512: onHost512 } : {}),
        };
        return { id: outs.key, outs };
      },
      { signal },
    );
  } catch (err) {
    throw explain(err, host, `adopting ${what}`);
  }
}

export function createImageProvider(ctx: ResourceContext): ResourceProvider<ImageInputs, ImageOutputs> {
  return {
    async check(olds, news) {
      const failures: Failures = [];
      const inputs = checkStorageInputs(failures, news, imageDeclaration);
      inputs.source = (await checkSource(failures, news.source, olds !== undefined)) as ImageSource;
      if (news.format !== undefined && !isUnknown(news.format) && !["qcow2", "raw"].includes(news.format)) {
        failures.push({ property: "format", reason: `format must be "qcow2" or "raw" (it is read from the image header; give it only to assert it)` });
      }
      const file = inputs.source?.path && !isUnknown(inputs.source.path) ? sourceFile(inputs.source.path) : undefined;
      if (file && !failures.length) {
        try {
          const header = readImageHeader(file);
          if (news.format && !isUnknown(news.format) && news.format !== header.format) {
            failures.push({ property: "format", reason: `format is "${news.format}" but ${file} is ${header.format} by its header` });
          }
        } catch (err) {
          if (err instanceof UnsupportedImageFormat) failures.push({ property: "source.path", reason: `source.path: ${err.message}` });
          else throw err;
        }
      }
      const { availableBytes } = await checkHostHealth(ctx, failures, inputs.host, inputs.pool);
      if (availableBytes !== undefined && !failures.length) {
        // a URL's announced length: what its bytes can take of the pool at most (the volume is sparse)
        const url = inputs.source?.url && !isUnknown(inputs.source.url) ? inputs.source.url : undefined;
        const size = file ? fs.statSync(file).size : url ? await announcedLength(url) : undefined;
        if (size !== undefined && size > availableBytes) {
          failures.push({
            property: "pool",
            reason: `pool "${inputs.pool}" on ${hostLabel(inputs.host)} has ${availableBytes} bytes free, the image ${file ? "needs" : `at ${displayUrl(url!)} announces`} ${size}`,
          });
        }
      }
      await checkNames(ctx.pool, failures, volumeClaims, inputs, olds);
      return { inputs, failures };
    },

    diff: declaredDiff(imageDeclaration, volumeClaims),

    create: (inputs) =>
      interruptible(async (signal) => {
        const host = hostLabel(inputs.host);
        if (inputs.adopt) {
          const adopted = await adoptImage(ctx, inputs, host, signal);
          if (adopted) return adopted;
        }
        // nothing is left in the pool when the upload fails, the bytes are not the expected
        // ones or the run is stopped
        const making = new Making(ctx.pool, inputs.host);
        try {
          const image = await openImage(inputs.source, host);
          try {
            const { header } = image;
            // check could only read the header of a local file; a download is checked here
            if (inputs.format && inputs.format !== header.format) {
              throw new KvmError("permanent", `format is "${inputs.format}" but the image is ${header.format} by its header`, {
                property: "format",
                host,
                fix: "Drop format (it is read from the header) or fix the source; nothing was created",
              });
            }
            // until its last write the volume starts with a mark of its own: what proves it ours
            const token = newHeadToken();
            const capacityBytes = header.format === "qcow2" ? header.virtualSize : header.fileSize;
            const made = await ctx.pool.run(
              inputs.host,
              async (lv) => {
                const { pool } = await poolForNewVolume(lv, inputs.host, inputs.pool, inputs.name);
                // sparse: the size comes from bytes not verified yet (a mirror may claim terabytes); only what arrives is allocated
                const xml = volumeXml({
                  name: inputs.name,
                  capacityBytes,
                  format: header.format,
                  allocationBytes: 0,
                });
                // until its first bytes arrive, its mtime when made proves it
                const vol = await making.make(
                  { kind: "volume", pool: inputs.pool, name: inputs.name, id: `head:${token}` },
                  () => lv.createVolume(pool, xml),
                  (v) => mtimeId(lv, v),
                );
                const held = holdHead(uploadChunks(image.body, { sparse: true }), headMark(token));
                await lv.uploadVolume(vol, held.chunks, {
                  sparse: true,
                  signal,
                  onProgress: progressReporter(host, `${inputs.pool}/${inputs.name}`, header.fileSize),
                });
                const digests = await image.digests();
                verifyDigests(inputs.source, digests, host);
                const { sha256 } = digests;
                // the real head goes only into the volume that still carries the mark: libvirt
                // names a volume, so one removed and made again meanwhile would get it
                if (!(await proves(lv, vol, `head:${token}`))) {
                  throw new KvmError("conflict", `volume ${inputs.pool}/${inputs.name} was removed and made again by someone else while the image uploaded`, {
                    host,
                    property: "name",
                    fix: "Find out who else manages volumes of this pool; the volume of that name now is theirs and was left alone",
                  });
                }
                await writeVolumeBytes(lv, vol, 0, held.head());
                // no pool refresh: libvirt refuses it while another upload runs in the pool
                // ("pool has asynchronous jobs running"); libvirt's own re-read is waited for
                const d = await describeReread(lv, vol, { format: header.format, capacityBytes });
                if (d.mtime) await making.reidentify(inputs.name, `mtime:${d.mtime}`);
                // a file's digest is its identity in later diffs (check computes it then)
                const source = inputs.source.path ? { ...inputs.source, sha256 } : inputs.source;
                // the capacity is the verified header's: libvirt re-reads a volume after each upload
                // in a thread of its own, and read now it may still hold what it read under the mark
                const outs = {
                  ...imageOutputs({ ...inputs, source }, { ...d, key: d.key ?? vol.key, capacityBytes }, header.format, sha256, sealed(d)),
                  ...(digests.sha512 ? { sha512: digests.sha512 } : {}),
                };
                return { id: outs.key, outs };
              },
              { mutating: true, signal },
            );
            await making.kept();
            return made;
          } finally {
            await image.close();
          }
        } catch (err) {
          await making.undo();
          throw explain(downloadFailure(err), host, `creating image ${inputs.pool}/${inputs.name}`);
        }
      }),

    async importObject(id, host) {
      throw new KvmError("permanent", `an Image is made from its source, which a volume on the host does not tell: import ${id} as a kvm:index:Volume`, {
        host: hostLabel(host),
        fix: `pulumi import kvm:index:Volume NAME ${id} (pulumi-kvm discover lists every volume as a Volume); a Volume over it names it by baseImage`,
      });
    },

    async read(id, props) {
      return readVolume(ctx.pool, id, props, "image");
    },

    async update(_id, olds, news) {
      // only connection details, and another place for the same bytes, get here: nothing
      // changes on the host
      return { outs: { ...olds, host: news.host, source: news.source, adopt: news.adopt } };
    },

    async delete(_id, props) {
      await deleteVolume(ctx.pool, props, "image", async (lv, pool) => {
        const users = await volumesBackedBy(lv, pool, props.path);
        if (users.length)
          return `image ${props.pool}/${props.name} still backs ${users.length} volume(s): ${users.join(", ")}. Delete those volumes first (their data depends on this image)`;
        const domains = await domainsUsing(lv, props.path);
        if (domains.length) return `image ${props.pool}/${props.name} is a disk of domain ${domains.join(", ")}. Delete or detach the domain first`;
        return undefined;
      });
    },
  };
}

export const imageProvider = createImageProvider(processContext);
