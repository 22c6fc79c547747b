// Storage helpers shared by Image and Volume: finding volumes, who uses them, and
// their description as resource outputs.
import { checkNamedInputs } from "./named-check";
import { Declaration } from "./properties";
import { KvmError } from "../errors";
import { HostConfig } from "../ssh/host";
import { checkName, Failures } from "./input-checks";
import { hostLabel } from "./host-inputs";
import { alreadyExists } from "./adopt";
import { Claims } from "./collisions";
import { HostAccess } from "./context";
import { clearLeftovers, isJournalled } from "./rollback";
import { DomainRef, isLibvirtError, Libvirt, PoolRef, unlessMissing, VolumeRef } from "../libvirt/api";
import { parseVolumeXml, VolumeDescription } from "../xml/volume";
import { identify, VolumeIdentity } from "../kinds/volume/identity";
import { at, children, node, parseXml } from "../xml/dom";
import { OBJECTS } from "../kinds/objects";
import { sizeOf } from "../kinds/volume/growth";
import { deleteRecorded, readRecorded, RecordedObject } from "./lifecycle";

export const findVolume = (lv: Libvirt, pool: PoolRef, name: string) => unlessMissing(lv.lookupVolume(pool, name), "NO_STORAGE_VOL");

export const findPool = (lv: Libvirt, name: string) => unlessMissing(lv.lookupPool(name), "NO_STORAGE_POOL");

export async function describeVolume(lv: Libvirt, vol: VolumeRef): Promise<VolumeDescription & { path: string }> {
  const [xml, path] = await Promise.all([lv.volumeXml(vol), lv.volumePath(vol)]);
  return { ...parseVolumeXml(xml), path };
}

/** How long a create waits for libvirt to re-read the volume it uploaded, and how often it looks. */
const REREAD_BOUND_MS = 20_000;
const REREAD_POLL_MS = 100;

/**
 * The volume as libvirt describes it once it holds what `expect` says, its format and size.
 * libvirt re-reads a volume after each upload in a thread of its own
 * (virStorageVolPoolRefreshThread), and until then describes what it read before: an Image
 * just made could read as a raw volume of its file's size (its head mark stood there), and
 * an overlay or copy made on it would take that (seen on the lab: a 10 MiB overlay of a 64
 * MiB image, whose guest could not boot). libvirt skips that re-read while a volume is being
 * built in the pool: after the bound, as it describes it.
 */
export async function describeReread(
  lv: Libvirt,
  vol: VolumeRef,
  expect: { format: string; capacityBytes: number },
  boundMs = REREAD_BOUND_MS,
): Promise<VolumeDescription & { path: string }> {
  const until = Date.now() + boundMs;
  for (;;) {
    const d = await describeVolume(lv, vol);
    if ((d.format === expect.format && d.capacityBytes === expect.capacityBytes) || Date.now() >= until) return d;
    await new Promise((r) => setTimeout(r, REREAD_POLL_MS));
  }
}

/** Names of the pool's volumes whose backing file is `path`. */
export async function volumesBackedBy(lv: Libvirt, pool: PoolRef, path: string): Promise<string[]> {
  const vols = await lv.listVolumes(pool);
  const out: string[] = [];
  for (const v of vols) {
    try {
      if (parseVolumeXml(await lv.volumeXml(v)).backingPath === path) out.push(v.name);
    } catch (err) {
      if (!isLibvirtError(err, "NO_STORAGE_VOL")) throw err; // deleted meanwhile
    }
  }
  return out;
}

/** The host's domains with a disk whose source is `path` (a running one as it runs). */
async function domainRefsUsing(lv: Libvirt, path: string): Promise<DomainRef[]> {
  const out: DomainRef[] = [];
  for (const d of await lv.listDomains()) {
    try {
      const devices = node(parseXml(await lv.domainXml(d, 0)), "devices");
      if (children(devices, "disk").some((disk) => at(disk, "source@file") === path)) out.push(d);
    } catch (err) {
      if (!isLibvirtError(err, "NO_DOMAIN")) throw err;
    }
  }
  return out;
}

/** Names of the host's domains with a disk whose source is `path`. */
export async function domainsUsing(lv: Libvirt, path: string): Promise<string[]> {
  return (await domainRefsUsing(lv, path)).map((d) => d.name);
}

/** The running domain whose qemu has `path` open (and locked), if any. */
export async function runningDomainUsing(lv: Libvirt, path: string): Promise<DomainRef | undefined> {
  return (await domainRefsUsing(lv, path)).find((d) => d.id >= 0);
}

/**
 * Where a new volume goes: the pool (which must exist) with no volume of that name yet,
 * or, for a resource that adopts, with the volume of that name to take over.
 */
export async function poolForNewVolume(
  lv: Libvirt,
  host: HostConfig,
  poolName: string,
  name: string,
  adopt?: boolean,
): Promise<{ pool: PoolRef; existing?: VolumeRef }> {
  const label = hostLabel(host);
  await clearLeftovers(host, lv);
  const pool = await findPool(lv, poolName);
  if (!pool) {
    throw new KvmError("not-found", `storage pool "${poolName}" does not exist`, {
      host: label,
      property: "pool",
      codeName: "VIR_ERR_NO_STORAGE_POOL",
      fix: "Create and start the pool on the host (or with a kvm.StoragePool), or set pool",
    });
  }
  const existing = await findVolume(lv, pool, name);
  if (existing && !adopt) throw alreadyExists(label, `volume "${name}" in pool "${poolName}"`, OBJECTS.volume.removal(name, poolName));
  return { pool, existing };
}

/** A volume passed with its record (a disk, a copy's source) that is another one of that name now. */
export function notAsRecorded(host: string, property: string, what: string, kind: "Image" | "Volume"): KvmError {
  return new KvmError("conflict", `${what} is not the ${kind} this stack made: it was removed and a volume of that name made again by someone else`, {
    host,
    property,
    fix: `Run pulumi refresh: the ${kind} is then recorded gone, and the next up makes it again under another name or after you removed the other volume`,
  });
}

interface StoredVolume {
  host: HostConfig;
  pool: string;
  name: string;
  path: string;
  key: string;
  format: string;
  capacityBytes: number;
  identity?: VolumeIdentity;
}

/** The recorded volume: found under its name and proven to be the one made (`other`: someone else's now). */
export function recordedVolume(props: StoredVolume, what: string): RecordedObject<VolumeRef> {
  return {
    host: props.host,
    what: `${what} ${props.pool}/${props.name}`,
    async find(lv) {
      const pool = await findPool(lv, props.pool);
      const vol = pool && (await findVolume(lv, pool, props.name));
      if (!vol) return {};
      return (await identify(lv, vol, props)) === "mine" ? { ref: vol } : { other: vol };
    },
  };
}

/** `read` of a volume-backed resource: refreshed from the host, or gone (empty id). */
export function readVolume<P extends StoredVolume>(pool: HostAccess, id: string, props: P, what: string): Promise<{ id: string; props: P }> {
  return readRecorded(pool, recordedVolume(props, what), id, props, async (lv, vol) => {
    const d = await describeVolume(lv, vol);
    // the format stays as recorded at create: libvirt re-probes the file, whose header a guest may have written
    return { ...props, path: d.path, key: d.key ?? vol.key, capacityBytes: sizeOf(d, props.format, hostLabel(props.host)), format: props.format };
  });
}

/** `delete` of a volume-backed resource: gone is success; `users` names what still needs it. */
export function deleteVolume(
  pool: HostAccess,
  props: StoredVolume,
  what: string,
  users: (lv: Libvirt, pool: PoolRef) => Promise<string | undefined>,
): Promise<void> {
  return deleteRecorded(pool, recordedVolume(props, what), async (lv, vol) => {
    const refusal = await users(lv, await lv.lookupPool(props.pool));
    if (refusal) throw new KvmError("conflict", refusal, { host: hostLabel(props.host) });
    await lv.deleteVolume(vol);
  });
}

/** The part of `check` Image and Volume share: host, pool and name, defaults filled. */
export function checkStorageInputs<I extends { host: HostConfig; pool: string; name: string; resourceName?: string; adopt?: boolean }, O>(
  failures: Failures,
  news: I,
  declaration: Declaration<I, O>,
): I {
  const inputs = checkNamedInputs(failures, declaration, news);
  checkName(failures, "pool", inputs.pool);
  return inputs;
}

type Placed = { host: HostConfig; pool: string; name: string };

/** The volume name an Image, Volume or seed ISO takes in its pool, for the collision check of `check`. */
export function volumeClaims(v: Placed, kind = "volume"): Claims {
  return {
    host: v.host,
    claims: [
      {
        property: "name",
        what: `${kind} "${v.name}" in pool "${v.pool}"`,
        removal: OBJECTS.volume.removal(v.name, v.pool),
        taken: async (lv) => {
          const pool = await findPool(lv, v.pool);
          return !!pool && !!(await findVolume(lv, pool, v.name)) && !(await isJournalled(lv, v.host, "volume", v.name, v.pool));
        },
      },
    ],
  };
}
