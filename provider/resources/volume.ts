// The Volume resource: a disk, blank, a copy-on-write overlay of an Image, or a full copy
// of another volume made on the host.
import { explain, KvmError } from "../errors";
import { callTimeoutMs, HostConfig } from "../ssh/host";
import { parseSize } from "../units";
import { parseVolumeXml, volumeXml, VolumeFormat } from "../xml/volume";
import { checkHostHealth, checkName, Failures, hostLabel, isUnknown } from "./common";
import { rememberStackNames } from "./collisions";
import {
  checkStorageInputs,
  checkVolumeName,
  deleteVolume,
  describeVolume,
  domainsUsing,
  findRecordedVolume,
  findVolume,
  poolForNewVolume,
  readVolume,
  runningDomainUsing,
  volumeClaims,
} from "./storage";
import { differences, refuseAdoption } from "./adopt";
import { progressReporter } from "./progress";
import { Libvirt, PoolRef, VolumeRef } from "../libvirt/api";
import { Making } from "./rollback";
import { recordedGone } from "./host-object";
import { identityKind, newMarker, VolumeIdentity, writeMarker } from "./volume-identity";
import { interruptible } from "./interrupt";
import { processContext, ResourceContext } from "./context";
import { ResourceProvider } from "./types";
import { diffOf } from "./properties";
import { volumeDeclaration } from "./volume-properties";

export interface VolumeInputs {
  host: HostConfig;
  pool: string;
  name: string;
  resourceName?: string;
  /** Name of the backing volume (an Image) in the same pool. */
  baseImage?: string;
  /** Name of a volume in the same pool whose content is copied (a full, independent copy). */
  cloneOf?: string;
  /**
   * The format of the volume baseImage or cloneOf names: recorded by that Image or Volume
   * (the SDK passes it), or declared by the program for a volume given by name. Never
   * probed from the file. Required with either.
   */
  sourceFormat?: VolumeFormat;
  /** The base image's virtual size when the program could read it (a local file): preview refuses a smaller capacity. */
  baseCapacity?: number;
  adopt?: boolean;
  /** Bytes; given as "20GiB" or a number of bytes (normalised to bytes by check). */
  capacity?: number | string;
  format?: VolumeFormat;
}

export interface VolumeOutputs extends VolumeInputs {
  kvmKind: "Volume";
  path: string;
  key: string;
  format: VolumeFormat;
  capacityBytes: number;
  /** An overlay's base as it was made: the chain a Domain spells out for this disk. */
  backing?: { path: string; format: VolumeFormat };
  /** What proves the volume on the host is this one (volume-identity.ts); absent in records of older versions. */
  identity?: VolumeIdentity;
}

/** The outputs of a created volume: its inputs as checked and what libvirt made of them. */
export function volumeOutputs(
  inputs: VolumeInputs,
  made: { path: string; key: string; capacityBytes: number },
  format: VolumeFormat,
  backing: VolumeOutputs["backing"],
  identity: VolumeIdentity,
): VolumeOutputs {
  return { ...inputs, kvmKind: "Volume", path: made.path, key: made.key, format, capacityBytes: made.capacityBytes, ...(backing ? { backing } : {}), identity };
}

interface Source {
  ref: VolumeRef;
  what: string;
  path: string;
  format: VolumeFormat;
  capacityBytes: number;
  allocationBytes: number;
}

/**
 * The volume an overlay (baseImage) or a copy (cloneOf) is made from, in the same pool,
 * with the format recorded or declared for it. A copy is made by libvirt, which reads its
 * source as libvirt's own probe of the file says: it goes ahead only when that reading is
 * the declared format, since a raw volume whose guest wrote a qcow2 header naming a host
 * file would be read as that header says.
 */
async function sourceOf(lv: Libvirt, pool: PoolRef, inputs: VolumeInputs, host: string): Promise<Source | undefined> {
  const property = inputs.baseImage ? "baseImage" : inputs.cloneOf ? "cloneOf" : undefined;
  if (!property) return undefined;
  const name = inputs[property]!;
  const format = inputs.sourceFormat!;
  const ref = await findVolume(lv, pool, name);
  if (!ref)
    throw new KvmError("not-found", `${property} "${name}" is not a volume in pool "${inputs.pool}"`, {
      host,
      property,
      fix: "Pass an Image or Volume of the same host and pool, or an existing volume's name",
    });
  const [d, info] = await Promise.all([describeVolume(lv, ref), lv.volumeInfo(ref)]);
  if (property === "cloneOf" && (d.format !== format || (format === "raw" && d.backingPath))) {
    throw new KvmError(
      "permanent",
      `cloneOf "${name}" is ${format}, but its content carries a ${d.format ?? "unknown"} header${d.backingPath ? ` naming the file ${d.backingPath}` : ""}; libvirt would copy it as that header says, so nothing was copied`,
      {
        host,
        property: "cloneOf",
        fix: "A guest may have written that header into its disk: copy the volume another way (e.g. qemu-img convert -f raw on the host), or fix sourceFormat if the volume really is a qcow2",
      },
    );
  }
  return {
    ref,
    what: property === "baseImage" ? "image" : "source volume",
    path: d.path,
    format,
    capacityBytes: d.capacityBytes,
    allocationBytes: Number(info.allocation),
  };
}

/** An overlay's base: the base volume's path (from its name) and its recorded format. */
const backingOf = (inputs: VolumeInputs, source: Source | undefined) => (inputs.baseImage && source ? { path: source.path, format: source.format } : undefined);

/** How often a copy's progress is looked at, and logged. */
const COPY_POLL_MS = 1000;
const COPY_REPORT_MS = 2000;
/** The shortest time without progress that fails a copy, whatever the call bound. */
const COPY_PROGRESS_FLOOR_MS = 15_000;

/**
 * A full copy made by libvirt on the host, one call that lasts as long as the copy: its
 * growing allocation is logged as progress and bounds it. It fails when the copy made no
 * progress for the call bound (PULUMI_KVM_CALL_TIMEOUT, at least 15 s), however long it runs.
 */
async function copyWithProgress(lv: Libvirt, pool: PoolRef, xml: string, source: VolumeRef, host: string, what: string): Promise<VolumeRef> {
  const total = Number((await lv.volumeInfo(source)).allocation);
  const report = progressReporter(host, what, total, COPY_REPORT_MS, "copy");
  const name = parseVolumeXml(xml).name;
  // the allocation grows in the steps the filesystem reports (delayed allocation): never judge it over less than this
  const bound = callTimeoutMs() > 0 ? Math.max(callTimeoutMs(), COPY_PROGRESS_FLOOR_MS) : 0;
  const watchdog = new AbortController();
  let allocated = -1;
  let progressedAt = Date.now();
  const timer = setInterval(() => {
    // the volume is listed while libvirt fills it; a failed look is only a missed report
    lv.lookupVolume(pool, name)
      .then((v) => lv.volumeInfo(v))
      .then(
        (i) => {
          const now = Number(i.allocation);
          report({ covered: now, sent: now });
          if (now > allocated) [allocated, progressedAt] = [now, Date.now()];
        },
        () => undefined,
      )
      .finally(() => {
        if (bound > 0 && Date.now() - progressedAt > bound) {
          watchdog.abort(
            new KvmError("timeout", `the copy ${what} made no progress for ${bound / 1000} s`, {
              host,
              property: "cloneOf",
              fix: "Look at the host (disk full? a hung storage?); raise PULUMI_KVM_CALL_TIMEOUT for storage that pauses that long. libvirt may still be copying",
            }),
          );
        }
      });
  }, COPY_POLL_MS);
  try {
    const made = await lv.cloneVolume(pool, xml, source, watchdog.signal);
    report({ covered: total, sent: total }); // the last line: 100% and the copy's average rate
    return made;
  } finally {
    clearInterval(timer);
  }
}

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
  const diffs = differences(
    { format: d.format, baseImage: d.backingPath, capacity: d.capacityBytes },
    { format, baseImage: inputs.baseImage ? source!.path : undefined, capacity: capacity !== undefined && capacity < d.capacityBytes ? capacity : undefined },
    ["format", "baseImage", "capacity"],
  );
  if (diffs.length) throw refuseAdoption(host, what, diffs);
  if (capacity !== undefined && capacity > d.capacityBytes) await lv.resizeVolume(vol, BigInt(capacity), 0);
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
      await checkVolumeName(ctx.pool, failures, inputs, olds);
      return { inputs, failures };
    },

    async diff(_id, olds, news) {
      rememberStackNames(volumeClaims(olds));
      return diffOf(volumeDeclaration, olds, news);
    },

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
                vol = await making.make({ kind: "volume", pool: inputs.pool, name: inputs.name, id: marker }, make, (v) => v.key);
                if (marker) {
                  await writeMarker(lv, vol, marker);
                  identity = { marker };
                }
              }
              const d = await describeVolume(lv, vol);
              const outs = volumeOutputs(inputs, { ...d, key: d.key ?? vol.key }, format, backingOf(inputs, source), identity);
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
      const host = hostLabel(news.host);
      const want = news.capacity !== undefined ? Number(news.capacity) : olds.capacityBytes;
      // within what libvirt already allocated (it rounds sizes up): only the request is recorded
      if (want <= olds.capacityBytes) return { outs: { ...olds, host: news.host, capacity: news.capacity } };
      try {
        // the newest credentials: a key rotated in this update already applies
        return await ctx.pool.run(
          news.host,
          async (lv) => {
            const { vol } = await findRecordedVolume(lv, olds);
            if (!vol) throw recordedGone(host, `volume ${olds.pool}/${olds.name}`);
            // a running VM's qemu holds the file's write lock: it grows the disk itself (the guest sees it at once)
            const user = await runningDomainUsing(lv, olds.path);
            if (user) await lv.resizeDomainDisk(user, olds.path, BigInt(want));
            else await lv.resizeVolume(vol, BigInt(want), 0);
            const d = await describeVolume(lv, vol);
            return { outs: { ...olds, host: news.host, capacity: news.capacity, capacityBytes: d.capacityBytes } };
          },
          { mutating: true },
        );
      } catch (err) {
        throw explain(err, host, `growing volume ${olds.pool}/${olds.name} to ${want} bytes`);
      }
    },

    async delete(_id, props) {
      await deleteVolume(ctx.pool, props, "volume", async (lv) => {
        const users = await domainsUsing(lv, props.path);
        return users.length ? `volume ${props.pool}/${props.name} is attached to domain ${users.join(", ")}. Delete or detach the domain first` : undefined;
      });
    },
  };
}

export const volumeProvider = createVolumeProvider(processContext);
