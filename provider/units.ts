// Sizes and durations as users write them: "20GiB", "512MiB", a number of bytes;
// "5m", "15s", "500ms".

const SIZE_UNITS: Record<string, number> = {
  B: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
};

/** Parses a size; returns an error text instead of throwing so callers name the property. */
export function parseSize(v: unknown, numberUnit = 1): { bytes: number } | { error: string } {
  if (typeof v === "number") {
    if (!Number.isFinite(v) || !Number.isInteger(v) || v <= 0) return { error: `${v} is not a positive whole number` };
    return { bytes: v * numberUnit };
  }
  if (typeof v !== "string") return { error: `expected a size such as "20GiB", got ${typeof v}` };
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(v);
  if (!m) return { error: `"${v}" is not a size: write a number with a unit, e.g. "512MiB" or "20GiB"` };
  const unit = Object.keys(SIZE_UNITS).find((u) => u.toLowerCase() === m[2].toLowerCase());
  if (!unit) return { error: `"${m[2]}" is not a size unit: use B, KiB, MiB, GiB or TiB` };
  const bytes = Math.round(Number(m[1]) * SIZE_UNITS[unit]);
  if (bytes <= 0) return { error: `"${v}" is not a positive size` };
  return { bytes };
}

export function formatBytes(n: number | bigint): string {
  let v = Number(n);
  for (const u of ["B", "KiB", "MiB", "GiB", "TiB"]) {
    if (Math.abs(v) < 1024 || u === "TiB") return `${u === "B" ? v : v.toFixed(1)} ${u}`;
    v /= 1024;
  }
  return `${v} B`;
}

/** A size as a program writes it: "20GiB" or "512MiB" where exact, else its bytes (parseSize reads both back). */
export function sizeInput(bytes: number): string | number {
  for (const [unit, factor] of [
    ["TiB", 2 ** 40],
    ["GiB", 2 ** 30],
    ["MiB", 2 ** 20],
  ] as const)
    if (bytes % factor === 0) return `${bytes / factor}${unit}`;
  return bytes;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses "90s", "5m", "1h30m", "250ms" or a number of seconds into milliseconds. */
export function parseDuration(v: unknown): { ms: number } | { error: string } {
  if (typeof v === "number") return Number.isFinite(v) && v >= 0 ? { ms: v * 1000 } : { error: `${v} is not a duration` };
  if (typeof v !== "string") return { error: `expected a duration such as "5m", got ${typeof v}` };
  const s = v.trim();
  // "" is no duration, not zero: an empty shutdownTimeout must not mean an instant hard power-off
  if (!s) return { error: `an empty string is not a duration: write e.g. "30s", "5m" or "1h30m"` };
  if (/^\d+(\.\d+)?$/.test(s)) return { ms: Number(s) * 1000 };
  let total = 0;
  let rest = s;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)/.exec(rest);
    if (!m) return { error: `"${v}" is not a duration: write e.g. "30s", "5m" or "1h30m"` };
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return { ms: total };
}

/** A bound in seconds from environment variable `name`, in ms: its default where unset or not a number in range (0 allowed where `zeroAllowed`: no bound). */
export function envSecondsMs(name: string, defaultSeconds: number, zeroAllowed = false): number {
  const s = Number(process.env[name] ?? defaultSeconds);
  return (Number.isFinite(s) && (s > 0 || (zeroAllowed && s === 0)) ? s : defaultSeconds) * 1000;
}
