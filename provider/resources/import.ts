// `pulumi import` of an object made outside Pulumi: the ID is the one the state shows after
// a create, read with nothing recorded; what the kind returns are the inputs that make the
// same object, so the program Pulumi writes from them previews clean. Hand-made objects
// carry no ownership marker: the ID read here (a UUID) is what refresh, update and delete
// prove before acting, as for an object the stack made.
import { KvmError } from "../errors";
import { uuidBytes } from "../uuid";
import { deepEqual } from "./deep-equal";
import type { Libvirt } from "../libvirt/api";
import type { ImportLookup } from "./object-kind";
import type { HostAccess } from "../pool/host-pool";
import type { HostConfig } from "../ssh/host";
import { hostLabel } from "./host-inputs";

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** The UUID an import's ID must be, as 16 bytes; `listing` is how the user finds it. */
export function importedUuid(id: string, what: string, host: string, listing: string): Buffer {
  if (!UUID_RE.test(id)) {
    throw new KvmError("permanent", `the ID to import a ${what} by is its UUID, not ${JSON.stringify(id)}`, {
      host,
      fix: `Find the UUID with ${listing} (pulumi-kvm discover lists every object of a host with its ID)`,
    });
  }
  return uuidBytes(id);
}

/** The error of an import whose object is not on the host. */
export function notOnHost(host: string, what: string, listing: string): KvmError {
  return new KvmError("not-found", `there is no ${what} on this host`, {
    host,
    fix: `Check the ID and the provider's host (kvm:address): ${listing} lists what the host has`,
  });
}

/** The inputs of an import: only the members that have a value (absent ones take their defaults). */
export function present<T extends object>(inputs: T): T {
  return Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== undefined)) as T;
}

/** Checked inputs as a program writes them: a member equal to its declared default left out (check fills it in again). */
export function withoutDefaults<T extends object>(properties: Record<string, { default?: unknown }>, inputs: T): T {
  return Object.fromEntries(
    Object.entries(inputs).filter(([k, v]) => v !== undefined && !(properties[k]?.default !== undefined && deepEqual(properties[k].default, v))),
  ) as T;
}

/** The object a UUID names on the host, else an error that says how to list them. */
async function foundByUuid<R>(lv: Libvirt, uuid: Buffer, id: string, host: string, o: ImportLookup<R>): Promise<R> {
  const found = await o.lookup(lv, uuid);
  if (!found) throw notOnHost(host, `${o.what} with UUID ${id}`, o.listing);
  return found;
}

/** The object an import's ID names on the host: the ID proven a UUID, the object found by it. */
export const importedObject = <R>(lv: Libvirt, id: string, host: string, o: ImportLookup<R>): Promise<R> =>
  foundByUuid(lv, importedUuid(id, o.kind, host, o.listing), id, host, o);

/** A kind's `importObject`: an ID that is no UUID fails before the host is dialled; on its connection, the object it names, then what the kind reads of it. */
export function importByUuid<R, T>(
  pool: HostAccess,
  where: ImportLookup<R>,
  take: (lv: Libvirt, found: R, host: HostConfig, label: string) => Promise<T>,
): (id: string, host: HostConfig) => Promise<T> {
  return async (id, host) => {
    const label = hostLabel(host);
    const uuid = importedUuid(id, where.kind, label, where.listing);
    return pool.run(host, async (lv) => take(lv, await foundByUuid(lv, uuid, id, label, where), host, label));
  };
}
