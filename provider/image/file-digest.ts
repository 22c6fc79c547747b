// The sha256 of a local image file, computed in a worker thread: hashing a gigabyte
// takes a core for a second, and the thread that runs uploads and libvirt calls must
// not give it that (an upload hashes its file while it sends it, on the other core).
// Each version of a file (device, inode, size, mtime) is hashed once per process.
import * as fs from "fs";
import { Worker } from "worker_threads";

const WORKER = `
const { parentPort, workerData } = require("worker_threads");
const crypto = require("crypto");
const fs = require("fs");
const h = crypto.createHash("sha256");
const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
const fd = fs.openSync(workerData, "r");
try {
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    h.update(n === buf.length ? buf : buf.subarray(0, n));
  }
} finally {
  fs.closeSync(fd);
}
parentPort.postMessage(h.digest("hex"));
`;

const digests = new Map<string, Promise<string>>();

/** A file's version: what must change for its content to have changed. */
export function fileVersion(file: string): string {
  const st = fs.statSync(file);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

function hashInWorker(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: file });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`hashing ${file} stopped (worker exit ${code})`)));
  });
}

/** The sha256 (hex) of a file's content, computed once per version of the file in this process. */
export function sha256File(file: string): Promise<string> {
  const key = fileVersion(file);
  let digest = digests.get(key);
  if (!digest) {
    digest = hashInWorker(file);
    digests.set(key, digest);
    digest.catch(() => digests.delete(key));
  }
  return digest;
}
