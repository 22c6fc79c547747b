// Equality of values as Pulumi stores them, for diffs and record comparisons.

/** A value's canonical form: keys sorted, absent (undefined) members dropped. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => canonical(x) ?? null);
  if (v && typeof v === "object") {
    const members = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(members)
        .sort()
        .filter((k) => members[k] !== undefined)
        .map((k) => [k, canonical(members[k])]),
    );
  }
  return v;
}

/** Equal as Pulumi stores them: key order and absent members do not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));
}
