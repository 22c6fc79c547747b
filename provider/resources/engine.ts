// The engine boundary. Pulumi's dynamic-provider host turns every result into a
// protobuf Struct (Struct.fromJavaScript), which throws on `undefined`, bigint,
// functions and symbols — after the object was made on the host. Everything a
// resource returns, or attaches to a partial-init error, crosses `toEngine` first.
import { PartialInitError } from "./partial-init";

/** A JSON-like copy of `value` that Struct.fromJavaScript accepts: absent means absent. */
export function toEngine<T>(value: T): T {
  return plain(value) as T;
}

function plain(v: unknown): unknown {
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      return Number.isFinite(v) ? v : null;
    case "bigint":
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (v === null) return null;
  if (Array.isArray(v)) return v.map((x) => plain(x) ?? null);
  if (Buffer.isBuffer(v)) return v.toString("hex");
  if (v instanceof Date) return v.toISOString();
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as object)) {
    const p = plain(x);
    if (p !== undefined) out[k] = p;
  }
  return out;
}

/** A partial-init error whose properties cross the boundary too. */
export function engineError(err: unknown): unknown {
  if (err instanceof PartialInitError) err.properties = toEngine(err.properties);
  return err;
}
