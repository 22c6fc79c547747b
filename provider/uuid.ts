// UUIDs in their three forms: the dashed text Pulumi records (an id, an output), the
// 16 bytes libvirt's protocol and a qcow2 header carry, and the bare hex the journal keeps.

/** The bare lower-case hex of a UUID given as text, dashed or not. */
export const uuidHex = (text: string): string => text.replace(/-/g, "").toLowerCase();

/** The 16 bytes of a UUID given as text. */
export const uuidBytes = (text: string): Buffer => Buffer.from(uuidHex(text), "hex");

/** The dashed text of a UUID's 16 bytes. */
export function uuidText(bytes: Uint8Array): string {
  const h = Buffer.from(bytes).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
