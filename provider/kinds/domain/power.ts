// Power operations with bounded waits: a graceful ACPI shutdown that falls back to
// destroy, and start.
import { DomainRef, DomainState, isLibvirtError, Libvirt, RpcAbortError } from "../../libvirt/api";
import { log } from "../../log";

export function isActiveState(state: number): boolean {
  // SHUTDOWN means "being shut down": qemu still runs and the disks are still in use
  return (
    state === DomainState.RUNNING ||
    state === DomainState.BLOCKED ||
    state === DomainState.PAUSED ||
    state === DomainState.SHUTDOWN ||
    state === DomainState.PMSUSPENDED
  );
}

/** The guest runs: not paused, crashed, stopping or off (what a running VM's console and address need). */
export function isRunningState(state: number): boolean {
  return state === DomainState.RUNNING || state === DomainState.BLOCKED;
}

export async function isActive(lv: Libvirt, dom: DomainRef): Promise<boolean> {
  return isActiveState((await lv.domainState(dom)).state);
}

/** ACPI shutdown, wait up to `timeoutMs`, then destroy. Resolves once the domain is off. */
export async function stopGracefully(lv: Libvirt, dom: DomainRef, timeoutMs: number, host: string): Promise<"graceful" | "forced" | "already"> {
  if (!(await isActive(lv, dom))) return "already";
  const deadline = Date.now() + timeoutMs;
  let asked = true;
  try {
    // bounded by the shutdown timeout: a hung qemu monitor never answers the request
    await lv.shutdownDomain(dom, AbortSignal.timeout(timeoutMs));
  } catch (err) {
    if (err instanceof RpcAbortError) asked = false;
    else if (!isLibvirtError(err, "OPERATION_INVALID")) throw err; // already stopping
  }
  while (asked && Date.now() < deadline) {
    if (!(await isActive(lv, dom))) return "graceful";
    await new Promise((r) => setTimeout(r, 500));
  }
  log(
    `host=${host} domain ${dom.name} did not shut down within ${timeoutMs / 1000} s${asked ? "" : " (qemu did not even take the request)"}: destroying it`,
    0,
  );
  try {
    await lv.destroyDomain(dom);
  } catch (err) {
    if (!isLibvirtError(err, "OPERATION_INVALID")) throw err; // it stopped meanwhile
  }
  return "forced";
}
