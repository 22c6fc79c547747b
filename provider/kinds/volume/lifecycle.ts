// The Volume resource: a disk, blank, a copy-on-write overlay of an Image, or a full copy
// of another volume made on the host.
import { checkNames, declaredDiff } from "../../resources/collisions";
import { backingOf, copyWithProgress, Source, sourceOf } from "./source";
import { explain, KvmError } from "../../errors";
import { parseSize } from "../../units";
import { volumeXml, VolumeFormat } from "../../xml/volume";
import { checkHostHealth } from "../../resources/host-check";
import { checkName, Failures } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import {
  checkStorageInputs,
  deleteVolume,
  describeVolume,
  domainsUsing,
  poolForNewVolume,
  readVolume,
  recordedVolume,
  runningDomainUsing,
  volumeClaims,
} from "../../resources/storage";
import { differences, refuseAdoption } from "../../resources/adopt";
import { Libvirt, VolumeRef } from "../../libvirt/api";
import { Making } from "../../resources/rollback";
import { identityKind, mtimeId, newMarker, VolumeIdentity, writeMarker } from "./identity";
import { interruptible } from "../../resources/interrupt";
import { processContext, ResourceContext } from "../../resources/context";
import { ResourceProvider } from "../../resources/types";
import { updateRecorded } from "../../resources/lifecycle";
import { volumeDeclaration, VolumeInputs, VolumeOutputs, volumeOutputs } from "./declaration";

export type { VolumeInputs, VolumeOutputs } from "./declaration";
import { importVolume } from "./import";
import { growVolume, sizeOf } from "./growth";

/**
 * Takes over an existing volume: growing it is applied, the rest must match already
 * (format, backing file), since only a replace could change it.
 */
async function adoptVolume(
  lv: Libvirt,
  vol: VolumeRef,
  inputs: VolumeInputs,
  format: VolumeFormat,
  capacity: number | undefined,
  source: Source | undefined,
  host: string,
): Promise<VolumeRef> {
  const d = await describeVolume(lv, vol);
  const what = `volume ${inputs.pool}/${inputs.name}`;
  const size = sizeOf(d, format, host);
  const diffs = differences(
    { format: d.format, baseImage: d.backingPath, capacity: size },
    { format, baseImage: inputs.baseImage ? source!.path : undefined, capacity: capacity !== undefined && capacity < size ? capacity : undefined },
    ["format", "baseImage", "capacity"],
  );
  if (diffs.length) throw refuseAdoption(host, what, diffs);
  if (capacity !== undefined && capacity > size) await growVolume(lv, vol, d.path, format, capacity, await runningDomainUsing(lv, d.path));
  return vol;
}

export function createVolumeProvider(ctx: ResourceContext): ResourceProvider<VolumeInputs, VolumeOutputs> {
  return {
    async check(olds, news) {
      const failures: Failures = [];
      const inputs = checkStorageInputs(failures, news, volumeDeclaration);
      if (news.baseImage !== undefined) checkName(failures, "baseImage", news.baseImage);
      if (news.cloneOf !== undefined) checkName(failures, "cloneOf", news.cloneOf);
      if (news.cloneOf !== undefined && news.baseImage !== undefined)
        failures.push({ property: "cloneOf", reason: "give cloneOf (a full copy) or baseImage (a copy-on-write overlay), not both" });
      const source = news.baseImage !== undefined ? "baseImage" : news.cloneOf !== undefined ? "cloneOf" : undefined;
      if (source && news.sourceFormat === undefined) {
        failures.push({
          property: "sourceFormat",
          reason: `sourceFormat is required when ${source} is given by name ("${String(news[source])}"): say "raw" or "qcow2" (what that volume was made as). libvirt's guess from the file's header is not used: a guest can write any header into its disk. An Image or Volume passed as ${source} brings its recorded format`,
        });
      } else if (news.sourceFormat !== undefined && !isUnknown(news.sourceFormat) && !["qcow2", "raw"].includes(news.sourceFormat)) {
        failures.push({ property: "sourceFormat", reason: `sourceFormat must be "qcow2" or "raw", got ${JSON.stringify(news.sourceFormat)}` });
      } else if (!source && news.sourceFormat !== undefined) {
        failures.push({ property: "sourceFormat", reason: "sourceFormat is the format of baseImage or cloneOf: give one of them, or drop sourceFormat" });
      }
      if (news.capacity !== undefined && !isUnknown(news.capacity)) {
        const s = parseSize(news.capacity);
        if ("error" in s) failures.push({ property: "capacity", reason: `capacity: ${s.error}` });
        else if (s.bytes > 2 ** 50) failures.push({ property: "capacity", reason: `capacity ${news.capacity} is absurdly large (over 1 PiB)` });
        else if (s.bytes < 1e6)
          failures.push({ property: "capacity", reason: `capacity ${news.capacity} is under 1 MB (a number means bytes); give a size such as "10GiB"` });
        else inputs.capacity = s.bytes;
      }
      const base = news.baseCapacity;
      if (base !== undefined && !isUnknown(base) && typeof inputs.capacity === "number" && inputs.capacity < base) {
        failures.push({
          property: "capacity",
          reason: `capacity ${inputs.capacity} bytes is smaller than the image's virtual size of ${base} bytes (baseImage "${String(news.baseImage)}"): leave capacity out (the image's size) or give at least that`,
        });
      }
      if (news.capacity === undefined && news.baseImage === undefined && news.cloneOf === undefined) {
        failures.push({
          property: "capacity",
          reason: 'a blank volume needs capacity (e.g. "20GiB"); an overlay or a copy takes its source\'s size by default',
        });
      }
      if (news.format !== undefined && !isUnknown(news.format) && !["qcow2", "raw"].includes(news.format)) {
        failures.push({ property: "format", reason: `format must be "qcow2" or "raw", got ${JSON.stringify(news.format)}` });
      }
      if (news.baseImage !== undefined && news.format === "raw") {
        failures.push({ property: "format", reason: "a copy-on-write overlay (baseImage) must be qcow2: drop format or baseImage" });
      }
      const { availableBytes } = await checkHostHealth(ctx, failures, inputs.host, inputs.pool);
      if (availableBytes !== undefined && inputs.format === "raw" && typeof inputs.capacity === "number" && inputs.capacity > availableBytes) {
        failures.push({
          property: "capacity",
          reason: `pool "${inputs.pool}" has ${availableBytes} bytes free, a raw volume of ${inputs.capacity} bytes does not fit`,
        });
      }
      await checkNames(ctx.pool, failures, volumeClaims, inputs, olds);
      return { inputs, failures };
    },

    diff: declaredDiff(volumeDeclaration, volumeClaims),

    create: (inputs) =>
      interruptible(async (signal) => {
        const host = hostLabel(inputs.host);
        const making = new Making(ctx.pool, inputs.host);
        try {
          const made = await ctx.pool.run(
            inputs.host,
            async (lv) => {
              const { pool, existing } = await poolForNewVolume(lv, inputs.host, inputs.pool, inputs.name, inputs.adopt);
              const source = await sourceOf(lv, pool, inputs, host);
              const capacity = inputs.capacity !== undefined ? Number(inputs.capacity) : source?.capacityBytes;
              if (source && capacity! < source.capacityBytes) {
                throw new KvmError("permanent", `capacity ${capacity} bytes is smaller than the ${source.what}'s ${source.capacityBytes}`, {
                  host,
                  property: "capacity",
                  fix: "Leave capacity out (the source's size) or make it at least that",
                });
              }
              const format = inputs.format ?? "qcow2";
              let vol: VolumeRef;
              let identity: VolumeIdentity = {};
              if (existing) vol = await adoptVolume(lv, existing, inputs, format, capacity, source, host);
              else {
                const xml = volumeXml({ name: inputs.name, capacityBytes: capacity!, format, backing: backingOf(inputs, source) });
                const make =
                  source?.ref && inputs.cloneOf
                    ? () => copyWithProgress(lv, pool, xml, source.ref, host, `${inputs.pool}/${inputs.cloneOf} → ${inputs.name}`)
                    : () => lv.createVolume(pool, xml);
                // a qcow2's identity is chosen now and journalled with it; a raw one has only its shape
                const marker = identityKind("volume", format, false) === "marker" ? newMarker() : undefined;
                // its mtime proves it too: a raw volume has nothing else, a qcow2 no marker until it is written
                vol = await making.make({ kind: "volume", pool: inputs.pool, name: inputs.name, id: marker }, make, (v) => mtimeId(lv, v));
                if (marker) {
                  await writeMarker(lv, vol, marker);
                  identity = { marker };
                }
              }
              const d = await describeVolume(lv, vol);
              const described = { ...d, key: d.key ?? vol.key, capacityBytes: sizeOf(d, format, host) };
              const outs = volumeOutputs(inputs, described, format, backingOf(inputs, source), identity);
              return { id: outs.key, outs };
            },
            { mutating: true, signal },
          );
          await making.kept();
          return made;
        } catch (err) {
          await making.undo();
          throw explain(err, host, `creating volume ${inputs.pool}/${inputs.name}`);
        }
      }),

    async read(id, props) {
      return readVolume(ctx.pool, id, props, "volume");
    },

    async update(_id, olds, news) {
      const want = news.capacity !== undefined ? Number(news.capacity) : olds.capacityBytes;
      // within what libvirt already allocated (it rounds sizes up): only the request is recorded
      if (want <= olds.capacityBytes) return { outs: { ...olds, host: news.host, capacity: news.capacity } };
      // the newest credentials: a key rotated in this update already applies
      return updateRecorded(
        ctx.pool,
        recordedVolume({ ...olds, host: news.host }, "volume"),
        async (lv, vol) => {
          await growVolume(lv, vol, olds.path, olds.format, want, await runningDomainUsing(lv, olds.path));
          const d = await describeVolume(lv, vol);
          return { outs: { ...olds, host: news.host, capacity: news.capacity, capacityBytes: sizeOf(d, olds.format, hostLabel(news.host)) } };
        },
        `growing volume ${olds.pool}/${olds.name} to ${want} bytes`,
      );
    },

    importObject: (id, host) => ctx.pool.run(host, (lv) => importVolume(lv, id, host)),

    async delete(_id, props) {
      await deleteVolume(ctx.pool, props, "volume", async (lv) => {
        const users = await domainsUsing(lv, props.path);
        return users.length ? `volume ${props.pool}/${props.name} is attached to domain ${users.join(", ")}. Delete or detach the domain first` : undefined;
      });
    },
  };
}

export const volumeProvider = createVolumeProvider(processContext);
