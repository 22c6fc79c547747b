// Power operations with bounded waits: a graceful ACPI shutdown that falls back to
// destroy, and start.
import { DomainRef, DomainState, Libvirt } from "../libvirt/api";
import { log } from "../log";
import { LibvirtError } from "../rpc/errors";

export function isActiveState(state: number): boolean {
  // SHUTDOWN means "being shut down": qemu still runs and the disks are still in use
  return state === DomainState.RUNNING || state === DomainState.BLOCKED || state === DomainState.PAUSED
    || state === DomainState.SHUTDOWN || state === DomainState.PMSUSPENDED;
}

export async function isActive(lv: Libvirt, dom: DomainRef): Promise<boolean> {
  return isActiveState((await lv.domainState(dom)).state);
}

/** ACPI shutdown, wait up to `timeoutMs`, then destroy. Resolves once the domain is off. */
export async function stopGracefully(lv: Libvirt, dom: DomainRef, timeoutMs: number, host: string): Promise<"graceful" | "forced" | "already"> {
  if (!(await isActive(lv, dom))) return "already";
  try {
    await lv.shutdownDomain(dom);
  } catch (err) {
    if (!(err instanceof LibvirtError && err.codeName === "VIR_ERR_OPERATION_INVALID")) throw err; // already stopping
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isActive(lv, dom))) return "graceful";
    await new Promise((r) => setTimeout(r, 500));
  }
  log(`host=${host} domain ${dom.name} did not shut down within ${timeoutMs / 1000} s: destroying it`, 0);
  try {
    await lv.destroyDomain(dom);
  } catch (err) {
    if (!(err instanceof LibvirtError && err.codeName === "VIR_ERR_OPERATION_INVALID")) throw err; // it stopped meanwhile
  }
  return "forced";
}
