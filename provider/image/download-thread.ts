// The parent's side of download-worker.ts: an image URL's bytes as an async generator,
// downloaded and hashed on another thread. A batch is valid until the next is asked
// for: then its memory goes back to the worker, which may send one more, so at most
// `window` batches wait in memory and no gigabyte of garbage is made.
import * as path from "path";
import { Worker } from "worker_threads";
import { DownloadError } from "./download";
import type { DownloadJob, WorkerMessage } from "./download-worker";
import type { Digests } from "./hash-thread";

export interface ThreadedDownload {
  length?: number;
  /** The bytes in batches, each valid until the next is asked for; fails with a DownloadError as the download does. */
  body: AsyncGenerator<Buffer>;
  /** The digests of the body; settles when the body has ended. */
  digests: Promise<Digests>;
  /** Stops the download (the body's own end or failure stops it too). */
  close(): Promise<void>;
}

export async function downloadInThread(url: string, sha512: boolean, batchBytes = 1024 * 1024, window = 4): Promise<ThreadedDownload> {
  const job: DownloadJob = { url, batchBytes, window, sha512 };
  const worker = new Worker(path.join(__dirname, "download-worker.js"), { workerData: job });
  const inbox: WorkerMessage[] = [];
  let wake: (() => void) | undefined;
  const deliver = (m: WorkerMessage) => {
    inbox.push(m);
    wake?.();
    wake = undefined;
  };
  let ended = false;
  worker.on("message", deliver);
  worker.on("error", (err) => deliver({ type: "error", message: `the download thread failed: ${err.message}`, permanent: false }));
  worker.on("exit", (code) => {
    if (!ended) deliver({ type: "error", message: `the download thread stopped (exit ${code})`, permanent: false });
  });
  const next = async (): Promise<WorkerMessage> => {
    while (inbox.length === 0)
      await new Promise<void>((r) => {
        wake = r;
      });
    return inbox.shift()!;
  };
  const close = async () => {
    ended = true;
    await worker.terminate();
  };
  const first = await next();
  if (first.type !== "opened") {
    await close();
    throw new DownloadError(first.type === "error" ? first.message : "the download thread answered out of order", first.type === "error" && first.permanent);
  }
  let settle!: { resolve(d: Digests): void; reject(e: Error): void };
  const digests = new Promise<Digests>((resolve, reject) => {
    settle = { resolve, reject };
  });
  digests.catch(() => undefined); // read only after a body that ended
  async function* body(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const m = await next();
        if (m.type === "data") {
          yield Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
          // the consumer is done with it: the memory goes back
          worker.postMessage(m.data.buffer, [m.data.buffer as ArrayBuffer]);
        } else if (m.type === "end") {
          settle.resolve(m.digests);
          return;
        } else {
          const err = new DownloadError(m.type === "error" ? m.message : "the download thread answered out of order", m.type === "error" && m.permanent);
          settle.reject(err);
          throw err;
        }
      }
    } finally {
      await close();
    }
  }
  return { length: first.length, body: body(), digests, close };
}
