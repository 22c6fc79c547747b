// How a volume grows. libvirt's own resize picks its tool from the format it last probed
// from the file's header, and a raw volume's header is its guest's to write: a qcow2
// header naming a host file as its data file makes libvirtd run `qemu-img resize` (no
// -f) on it as root, which changes that host file. So a raw volume grows as a file: one
// zero byte written at its new end through an upload, which libvirt writes as is (the
// rest of the growth is a hole). A qcow2 the provider made or adopted has qemu's header
// (its guest sees only the virtual disk), so libvirt's resize reads it right; and a VM's
// running qemu, which holds the file's lock, grows the disk itself with the format its
// definition declares.
import { DomainRef, Libvirt, VolumeRef } from "../../libvirt/api";
import { KvmError } from "../../errors";
import { VolumeDescription, VolumeFormat } from "../../xml/volume";
import { writeVolumeBytes } from "./write";

/**
 * A volume's size as the stack records it: a raw file's own size, whatever its guest's
 * header claims (libvirt's `<capacity>` of it is that claim), a qcow2's virtual size.
 */
export function sizeOf(d: VolumeDescription, format: string, host: string): number {
  if (format !== "raw") return d.capacityBytes;
  if (d.physicalBytes === undefined) {
    throw new KvmError("permanent", `libvirt reports no physical size for the raw volume ${d.path ?? d.name}`, {
      host,
      fix: "Use libvirt 3.0 or newer on the host: a raw volume's size is its file's size, never its header's claim",
    });
  }
  return d.physicalBytes;
}

/** Grows `vol` (recorded as `format`) to `bytes`; `running`: the VM whose qemu has it open. */
export async function growVolume(lv: Libvirt, vol: VolumeRef, path: string, format: VolumeFormat, bytes: number, running?: DomainRef): Promise<void> {
  if (running) return lv.resizeDomainDisk(running, path, BigInt(bytes));
  if (format !== "raw") return lv.resizeVolume(vol, BigInt(bytes), 0);
  await writeVolumeBytes(lv, vol, bytes - 1, Buffer.alloc(1));
}
