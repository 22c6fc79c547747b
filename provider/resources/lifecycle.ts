// The one skeleton of read, update and delete: the object of the record is found by its
// identity on a pooled connection, an object that took its name is left alone, and
// errors are explained. Each kind brings small parts: how its object is found, observed,
// updated and removed.
import { explain } from "../errors";
import { Libvirt } from "../libvirt/api";
import { HostConfig } from "../ssh/host";
import { explainRecorded, leftAlone } from "./recorded";
import { hostLabel } from "./host-inputs";
import { HostAccess } from "./context";
import { recordedGone } from "./host-object";
import { clearLeftovers } from "./rollback";

/** A resource's object as its record names it. */
export interface RecordedObject<R> {
  host: HostConfig;
  /** e.g. `storage pool fast`, for messages. */
  what: string;
  /** The object when it is still the one made; `other` when something else has its name now. */
  find(lv: Libvirt): Promise<{ ref?: R; other?: unknown }>;
}

/**
 * `read`: refreshed from the host, or gone (an empty id) when the object is, or is someone
 * else's now; `whenGone` then says what of the resource's the host still holds (a read
 * changes nothing on the host).
 */
export async function readRecorded<R, O>(
  pool: HostAccess,
  object: RecordedObject<R>,
  id: string,
  props: O,
  observe: (lv: Libvirt, ref: R) => Promise<O>,
  whenGone?: (lv: Libvirt) => Promise<void>,
) {
  try {
    return await pool.run(object.host, async (lv) => {
      const { ref } = await object.find(lv);
      if (ref !== undefined) return { id, props: await observe(lv, ref) };
      await whenGone?.(lv);
      return { id: "", props };
    });
  } catch (err) {
    throw explainRecorded(err, hostLabel(object.host), `reading ${object.what}`);
  }
}

/** `update`: applied to the object of the record (with the newest credentials), refused when it is gone. */
export async function updateRecorded<R, T>(
  pool: HostAccess,
  object: RecordedObject<R>,
  apply: (lv: Libvirt, ref: R) => Promise<T>,
  doing = `updating ${object.what}`,
): Promise<T> {
  const host = hostLabel(object.host);
  try {
    return await pool.run(
      object.host,
      async (lv) => {
        // an update may make objects too (a domain's new seed): a leftover of one that failed goes first
        await clearLeftovers(object.host, lv);
        const { ref } = await object.find(lv);
        if (ref === undefined) throw recordedGone(host, object.what);
        return apply(lv, ref);
      },
      { mutating: true },
    );
  } catch (err) {
    throw explain(err, host, doing);
  }
}

/**
 * `delete`: idempotent (gone is success), and never of an object that took the name. `alsoAfter`
 * removes what belongs to the resource beside its object (a domain's seed), found or not.
 */
export async function deleteRecorded<R>(
  pool: HostAccess,
  object: RecordedObject<R>,
  remove: (lv: Libvirt, ref: R) => Promise<void>,
  alsoAfter?: (lv: Libvirt) => Promise<void>,
): Promise<void> {
  const host = hostLabel(object.host);
  try {
    await pool.run(
      object.host,
      async (lv) => {
        await clearLeftovers(object.host, lv);
        const { ref, other } = await object.find(lv);
        if (other) leftAlone(host, object.what, "delete");
        if (ref !== undefined) await remove(lv, ref);
        await alsoAfter?.(lv);
      },
      { mutating: true },
    );
  } catch (err) {
    throw explainRecorded(err, host, `deleting ${object.what}`);
  }
}
