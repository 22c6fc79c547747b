// Upload progress for the provider's log: percent and MiB/s at most every few seconds.
import { log } from "../log";
import { TransferProgress } from "../libvirt/api";

export function progressReporter(host: string, what: string, total: number, everyMs = 3000): (p: TransferProgress) => void {
  const started = Date.now();
  let last = started;
  return (p) => {
    const now = Date.now();
    if (now - last < everyMs && p.covered < total) return;
    last = now;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const pct = total > 0 ? Math.min(100, (p.covered / total) * 100) : 100;
    log(`host=${host} upload ${what} ${pct.toFixed(0)}% ${(p.sent / 2 ** 20 / seconds).toFixed(1)} MiB/s sent (${(p.covered / 2 ** 20).toFixed(0)} of ${(total / 2 ** 20).toFixed(0)} MiB)`, 0);
  };
}
