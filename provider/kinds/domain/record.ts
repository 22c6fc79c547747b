// How the stack health and the CLI's domain commands find a recorded domain, and read its state.
import { describeState, DomainRef, Libvirt } from "../../libvirt/api";
import type { RecordReading } from "../../resources/kind";
import { uuidBytes } from "../../uuid";
import { isRunningState } from "./power";
import type { DomainOutputs } from "./types";

/** The domain a record names: by its UUID when recorded (a domain of that name made by someone else is not it; gone, libvirt's NO_DOMAIN), by name in older records. */
export function recordedDomainRef(lv: Libvirt, name: string, uuid: string | undefined): Promise<DomainRef> {
  return uuid ? lv.lookupDomainByUuid(uuidBytes(uuid)) : lv.lookupDomain(name);
}

export const domainRecord: RecordReading<DomainOutputs> = {
  read: (o) => ({ pool: "default", running: o.running, uuid: o.uuid }),
  states: ["running", "stopped"],
  async onHost(lv, r) {
    // a paused or crashed VM is not running, whatever qemu holds
    const s = await lv.domainState(await recordedDomainRef(lv, r.name, r.uuid));
    return { active: isRunningState(s.state), said: describeState(s) };
  },
};
