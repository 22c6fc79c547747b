// The sha256 (or sha512) of a local image file, computed in a worker thread: hashing a gigabyte
// takes a core for a second, and the thread that runs uploads and libvirt calls must
// not give it that (an upload hashes its file while it sends it, on the other core).
// Each version of a file (device, inode, size, mtime, ctime) is hashed once on this machine: its
// digest is remembered in the state directory for later runs.
import * as fs from "fs";
import * as path from "path";
import { Worker } from "worker_threads";
import { isOwnFile, stateDir } from "../state-dir";
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

/** A file's version: what must change for its content to have changed (ctime too: no user sets it back, as `touch -r` does mtime). */
export function fileVersion(file: string): string {
  const st = fs.statSync(file);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
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

/**
 * A digest (hex) of a file's content, computed once per version of the file and algorithm:
 * in this process, and across runs on this machine (a preview of a stack whose image file
 * has not changed since reads none of it).
 */
export function fileDigest(file: string, algorithm: "sha256" | "sha512"): Promise<string> {
  const key = `${algorithm} ${fileVersion(file)}`;
  let digest = digests.get(key);
  if (!digest) {
    const earlier = remembered(key);
    digest = earlier !== undefined ? Promise.resolve(earlier) : hashInWorker(file, algorithm).then((d) => remember(key, d));
    digests.set(key, digest);
    digest.catch(() => digests.delete(key));
  }
  return digest;
}

/** Keeps digests computed elsewhere (an upload's, on the bytes it sent) when `file` is still at `version`, as it was when they started. */
export function rememberDigests(file: string, version: string, computed: Partial<Record<"sha256" | "sha512", string>>): void {
  try {
    if (fileVersion(file) !== version) return;
  } catch {
    return;
  }
  for (const [algorithm, digest] of Object.entries(computed)) {
    if (digest) digests.set(`${algorithm} ${version}`, Promise.resolve(remember(`${algorithm} ${version}`, digest)));
  }
}

/** The digests earlier runs computed, by algorithm and file version, in the state directory. */
const REMEMBERED = "digests.json";
/** Files an infra repo points at are few: the most recent this many are kept. */
const REMEMBERED_MAX = 64;

function rememberedDigests(): Record<string, string> {
  try {
    const file = path.join(stateDir(), REMEMBERED);
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      if (!isOwnFile(fs.fstatSync(fd))) return {};
      const parsed: unknown = JSON.parse(fs.readFileSync(fd, "utf8"));
      return parsed && typeof parsed === "object" ? (parsed as Record<string, string>) : {};
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return {}; // none yet, or unreadable: the file is hashed
  }
}

function remembered(key: string): string | undefined {
  const d = rememberedDigests()[key];
  return typeof d === "string" && /^[0-9a-f]+$/.test(d) ? d : undefined;
}

/** Keeps `digest` for later runs (best effort: written whole under another name, then renamed into place). */
function remember(key: string, digest: string): string {
  try {
    const all = Object.entries({ ...rememberedDigests(), [key]: digest }).filter(([k]) => k !== key);
    const kept = Object.fromEntries([...all.slice(-(REMEMBERED_MAX - 1)), [key, digest]]);
    const file = path.join(stateDir(), REMEMBERED);
    const written = `${file}.${process.pid}`;
    fs.writeFileSync(written, JSON.stringify(kept), { mode: 0o600 });
    fs.renameSync(written, file);
  } catch {
    // not kept: the next run hashes the file again
  }
  return digest;
}
