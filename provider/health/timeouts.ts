// Probe timeout rules shared by the CLI and the check hooks: 0 means derived,
// min(15 s, interval); a timeout longer than the interval is refused.

export const MAX_DERIVED_TIMEOUT_MS = 15_000;

export function effectiveTimeout(timeoutMs: number, intervalMs?: number): { ms: number } | { error: string } {
  if (timeoutMs < 0) return { error: "--timeout must not be negative" };
  if (timeoutMs === 0) return { ms: Math.min(MAX_DERIVED_TIMEOUT_MS, intervalMs ?? MAX_DERIVED_TIMEOUT_MS) };
  if (intervalMs !== undefined && timeoutMs > intervalMs) {
    return {
      error: `--timeout ${timeoutMs / 1000}s is longer than --interval ${intervalMs / 1000}s: a probe could still run when the next starts. Use a timeout ≤ the interval, or leave --timeout out (it then defaults to min(15s, interval))`,
    };
  }
  return { ms: timeoutMs };
}
