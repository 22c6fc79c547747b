// A storage pool on its host: gone, removed by hand, found and proven by its UUID, removed.
import { KvmError } from "../../kvm-error";
import { isLibvirtError, Libvirt, PoolRef, unlessMissing } from "../../libvirt/api";
import { byUuid, ImportLookup, JournalledObject } from "../../resources/object-kind";

/** Stops and undefines the pool, refusing while it holds volumes; its directory goes only when empty. */
export async function removePool(lv: Libvirt, pool: PoolRef, host: string): Promise<void> {
  if (await lv.poolIsActive(pool)) {
    const volumes = (await lv.listVolumes(pool)).map((v) => v.name);
    if (volumes.length) {
      throw new KvmError("conflict", `storage pool "${pool.name}" still holds ${volumes.length} volume(s): ${volumes.join(", ")}`, {
        host,
        fix: "Delete those volumes first (remove their resources from the program, or virsh vol-delete them), then destroy the pool",
      });
    }
    await lv.stopPool(pool);
  }
  // libvirt's rmdir refuses a directory with anything in it: that one stays
  await lv.deletePoolStorage(pool).catch((err) => {
    if (!isLibvirtError(err)) throw err;
  });
  await lv.undefinePool(pool);
}

/** How `pulumi import` finds one by its UUID. */
export const poolImport: ImportLookup<PoolRef> = {
  kind: "StoragePool",
  what: "storage pool",
  listing: "virsh pool-list --all --uuid",
  lookup: (lv, uuid) => unlessMissing(lv.lookupPoolByUuid(uuid), "NO_STORAGE_POOL"),
};

export const poolObject: JournalledObject<PoolRef> = {
  gone: ["NO_STORAGE_POOL"],
  removal: (name) => `virsh pool-destroy ${name}; virsh pool-undefine ${name}`,
  find: (lv, made) => byUuid(made, lv.lookupPool(made.name)),
  remove: removePool,
};
