// The sha256 (or sha512) of a local image file, computed in a worker thread: hashing a gigabyte
// takes a core for a second, and the thread that runs uploads and libvirt calls must
// not give it that (an upload hashes its file while it sends it, on the other core).
// Each version of a file (device, inode, size, mtime) is hashed once per process.
import * as fs from "fs";
import { Worker } from "worker_threads";
import { dataRanges } from "./file-extents";

// workerData: the file and its data ranges (asked for here: fs-ext loads in the main
// thread only); holes are hashed as zeros without reading them
const WORKER = `
const { parentPort, workerData } = require("worker_threads");
const crypto = require("crypto");
const fs = require("fs");
const h = crypto.createHash(workerData.algorithm);
const SIZE = 4 * 1024 * 1024;
const buf = Buffer.allocUnsafe(SIZE);
const zeros = Buffer.alloc(SIZE);
const hashZeros = (n) => { for (; n > 0; n -= SIZE) h.update(n >= SIZE ? zeros : zeros.subarray(0, n)); };
const fd = fs.openSync(workerData.file, "r");
try {
  let at = 0;
  for (const [start, end] of workerData.ranges) {
    hashZeros(start - at);
    for (at = start; at < end;) {
      const n = fs.readSync(fd, buf, 0, Math.min(SIZE, end - at), at);
      if (n === 0) break;
      h.update(n === SIZE ? buf : buf.subarray(0, n));
      at += n;
    }
  }
  hashZeros(workerData.size - at);
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

function hashInWorker(file: string, algorithm: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const fd = fs.openSync(file, "r");
    let job: { file: string; size: number; ranges: [number, number][]; algorithm: string };
    try {
      const size = fs.fstatSync(fd).size;
      job = { file, size, ranges: dataRanges(fd, size), algorithm };
    } finally {
      fs.closeSync(fd);
    }
    const worker = new Worker(WORKER, { eval: true, workerData: job });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`hashing ${file} stopped (worker exit ${code})`)));
  });
}

/** The sha256 (hex) of a file's content, computed once per version of the file in this process. */
export function sha256File(file: string): Promise<string> {
  return fileDigest(file, "sha256");
}

/** A digest (hex) of a file's content, computed once per version of the file and algorithm in this process. */
export function fileDigest(file: string, algorithm: "sha256" | "sha512"): Promise<string> {
  const key = `${algorithm} ${fileVersion(file)}`;
  let digest = digests.get(key);
  if (!digest) {
    digest = hashInWorker(file, algorithm);
    digests.set(key, digest);
    digest.catch(() => digests.delete(key));
  }
  return digest;
}
