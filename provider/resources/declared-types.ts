// Reading a declared type ("Disk[]", "boolean | WaitForIp", "Volume | Image | string"): the
// types it allows, each with whether it is a list of them.

/** The alternatives of a declared type, a trailing note ("(MiB)") dropped. */
export function alternatives(declared: string): { name: string; list: boolean }[] {
  return declared
    .replace(/\s*\(.*\)$/, "")
    .split(" | ")
    .map((t) => ({ name: t.replace(/\[\]$/, ""), list: t.endsWith("[]") }));
}

export const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
