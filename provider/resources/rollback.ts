// Undoing what a failed create made. Runs on a fresh pooled call, so a link that died
// mid-operation is redialled first; a rollback that still fails is reported loudly,
// naming the object to remove, instead of being swallowed.
import { Libvirt } from "../libvirt/api";
import { warn } from "../log";
import { hostPool } from "../pool/host-pool";
import { LibvirtError } from "../rpc/errors";
import { HostConfig } from "../ssh/host";

export async function rollback(host: HostConfig, undo: (lv: Libvirt) => Promise<void>, what: string): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await hostPool.run(host, undo);
      return;
    } catch (err) {
      if (err instanceof LibvirtError && /^VIR_ERR_NO_/.test(err.codeName)) return; // already gone
      if (attempt === 3) {
        warn(`could not roll back ${what} on ${hostPool.describe(host).label}: ${(err as Error).message}; remove it by hand`);
        return;
      }
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}
