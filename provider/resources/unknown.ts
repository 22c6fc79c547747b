// Pulumi's unknown values: in a preview, an input computed from another resource's outputs
// is not known yet, and no check may take it for a value.

/** The value Pulumi passes for inputs not known yet (preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether the value is unknown, or holds an unknown anywhere inside. */
export function isUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(isUnknown);
  if (v && typeof v === "object") return Object.values(v).some(isUnknown);
  return false;
}
