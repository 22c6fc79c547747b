// swtpm's log of a domain's TPM, which libvirt leaves behind when it removes the domain and
// its TPM state. libvirt's API reaches a host file only as a volume of a pool: a transient
// pool on the log directory, stopped at once, reaches it without defining anything.
import * as crypto from "crypto";
import { Libvirt, unlessMissing } from "../../libvirt/api";
import { warn } from "../../log";
import { poolXml } from "../../xml/pool";

/** libvirt's default swtpm_log_dir for qemu domains. */
const SWTPM_LOG_DIR = "/var/log/swtpm/libvirt/qemu";

/** One at a time per host: libvirt refuses a second pool on the same directory. */
const queues = new Map<string, Promise<void>>();

/** Removes the TPM log of the domain named `name`; says so, and carries on, when it cannot. */
export function removeTpmLog(lv: Libvirt, name: string, host: string): Promise<void> {
  const next = (queues.get(host) ?? Promise.resolve()).then(() =>
    removeNow(lv, name).catch((err: Error) =>
      warn(`${host}: domain ${name} is gone, but its TPM log ${SWTPM_LOG_DIR}/${name}-swtpm.log was left (${err.message})`),
    ),
  );
  queues.set(host, next);
  return next;
}

async function removeNow(lv: Libvirt, name: string): Promise<void> {
  const pool = await lv.createTransientPool(poolXml({ name: `pulumi-kvm-tpm-log-${crypto.randomBytes(4).toString("hex")}`, type: "dir", path: SWTPM_LOG_DIR }));
  try {
    const log = await unlessMissing(lv.lookupVolume(pool, `${name}-swtpm.log`), "NO_STORAGE_VOL");
    if (log) await lv.deleteVolume(log);
  } finally {
    await lv.stopPool(pool);
  }
}
