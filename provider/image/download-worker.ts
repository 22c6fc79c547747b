// A worker thread that downloads an image URL (openDownload: retries, resumes, stall
// bound) and hashes it, handing the bytes to its parent in batches it transfers (no
// copy across threads), at most `window` batches ahead of what the parent has taken.
// The parent gives each batch's memory back when it is done with it, so the same few
// buffers go round. The parent's thread is left to the upload: download, hash and
// upload use two cores.
import * as crypto from "crypto";
import { parentPort, workerData } from "worker_threads";
import { DownloadError, openDownload } from "./download";
import type { Digests } from "./hash-thread";

export interface DownloadJob {
  url: string;
  batchBytes: number;
  window: number;
  /** Hash with sha512 too (a source that gives one to verify). */
  sha512: boolean;
}

/** What the worker tells its parent, in order: opened, data…, end; or error at any point. */
export type WorkerMessage =
  | { type: "opened"; length?: number }
  | { type: "data"; data: Uint8Array }
  | { type: "end"; digests: Digests }
  | { type: "error"; message: string; permanent: boolean };

const job = workerData as DownloadJob;
const port = parentPort!;
let credit = job.window;
let granted: (() => void) | undefined;
/** Batch memory the parent gave back. */
const free: ArrayBuffer[] = [];
port.on("message", (returned: ArrayBuffer) => {
  free.push(returned);
  credit++;
  granted?.();
  granted = undefined;
});

async function main(): Promise<void> {
  const opened = await openDownload(job.url);
  port.postMessage({ type: "opened", length: opened.length } satisfies WorkerMessage);
  const hash = crypto.createHash("sha256");
  const hash512 = job.sha512 ? crypto.createHash("sha512") : undefined;
  let parts: Buffer[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    while (credit === 0)
      await new Promise<void>((r) => {
        granted = r;
      });
    credit--;
    // memory of its own (never the shared pool), so it can be transferred
    const memory = size <= job.batchBytes ? (free.pop() ?? new ArrayBuffer(job.batchBytes)) : new ArrayBuffer(size);
    const batch = Buffer.from(memory, 0, size);
    let at = 0;
    for (const p of parts) at += p.copy(batch, at);
    parts = [];
    size = 0;
    const data = new Uint8Array(memory, 0, batch.length);
    port.postMessage({ type: "data", data } satisfies WorkerMessage, [memory]);
  };
  for await (const chunk of opened.body) {
    hash.update(chunk);
    hash512?.update(chunk);
    if (size + chunk.length > job.batchBytes) await flush();
    parts.push(chunk);
    size += chunk.length;
  }
  await flush();
  const digests: Digests = { sha256: hash.digest("hex"), ...(hash512 ? { sha512: hash512.digest("hex") } : {}) };
  port.postMessage({ type: "end", digests } satisfies WorkerMessage);
}

main().catch((err: unknown) => {
  const e = err as Error;
  port.postMessage({ type: "error", message: e.message, permanent: err instanceof DownloadError && err.permanent } satisfies WorkerMessage);
});
