// Where a Volume's content comes from: the base an overlay sits on or the volume a copy
// is made of, in its recorded format, and the copy libvirt makes, bounded by its progress.
import { KvmError } from "../../errors";
import { callTimeoutMs } from "../../ssh/host";
import { parseVolumeXml, VolumeFormat } from "../../xml/volume";
import { describeVolume, findVolume, notAsRecorded } from "../../resources/storage";
import { headOf, passedAsRecorded } from "./identity";
import { qcow2VirtualSize } from "../../image/header";
import { progressReporter } from "../../resources/progress";
import { sizeOf } from "./growth";
import { Libvirt, PoolRef, VolumeRef } from "../../libvirt/api";
import type { VolumeInputs } from "./declaration";

export interface Source {
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
export async function sourceOf(lv: Libvirt, pool: PoolRef, inputs: VolumeInputs, host: string): Promise<Source | undefined> {
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
  if (!(await passedAsRecorded(lv, ref, inputs.sourceIdentity)))
    throw notAsRecorded(host, property, `${property} "${name}"`, property === "baseImage" ? "Image" : "Volume");
  // a qcow2 source's size as its header gives it now: libvirt re-reads a volume after an upload in
  // a thread of its own, and until then may describe what it read before (describeReread)
  const [d, info, head] = await Promise.all([describeVolume(lv, ref), lv.volumeInfo(ref), format === "qcow2" ? headOf(lv, ref, 512) : undefined]);
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
    capacityBytes: (head && qcow2VirtualSize(head)) ?? sizeOf(d, format, host),
    allocationBytes: Number(info.allocation),
  };
}

/** An overlay's base: the base volume's path (from its name) and its recorded format. */
export const backingOf = (inputs: VolumeInputs, source: Source | undefined) =>
  inputs.baseImage && source ? { path: source.path, format: source.format } : undefined;

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
export async function copyWithProgress(lv: Libvirt, pool: PoolRef, xml: string, source: VolumeRef, host: string, what: string): Promise<VolumeRef> {
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
