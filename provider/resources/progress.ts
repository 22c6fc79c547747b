// Upload and copy progress for the provider's log: percent and MiB/s at most every few seconds.
import { log } from "../log";
import { TransferProgress } from "../libvirt/api";

export function progressReporter(host: string, what: string, total: number, everyMs = 3000, verb = "upload"): (p: TransferProgress) => void {
  const started = Date.now();
  let last = started;
  return (p) => {
    const now = Date.now();
    if (now - last < everyMs && (total === 0 || p.covered < total)) return;
    last = now;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const rate = `${(p.sent / 2 ** 20 / seconds).toFixed(1)} MiB/s ${verb === "upload" ? "sent" : "done"}`;
    const mib = (n: number) => (n / 2 ** 20).toFixed(0);
    // a download without Content-Length has no known total: no percentage to show
    log(
      total > 0
        ? `host=${host} ${verb} ${what} ${Math.min(100, (p.covered / total) * 100).toFixed(0)}% ${rate} (${mib(p.covered)} of ${mib(total)} MiB)`
        : `host=${host} ${verb} ${what} ${mib(p.covered)} MiB so far, ${rate}`,
      0,
    );
  };
}
