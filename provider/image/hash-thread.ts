// Digests of an upload's bytes computed on a thread of their own: on the thread that
// frames and encrypts an upload, the sha256 of a local file was its largest cost (about a
// third of its CPU, measured with --cpu-prof), and hashing beside it on another core
// takes that off the upload's path. A read buffer moves to the hashing thread (its
// memory is transferred, not copied) once the upload has copied it into its frames, and
// comes back to the reader once hashed; holes are hashed there as zeros.
import { Worker } from "worker_threads";

/** What the upload's bytes hash to; sha512 when the source gives one to verify. */
export interface Digests {
  sha256: string;
  sha512?: string;
}

const WORKER = `
const { parentPort, workerData } = require("worker_threads");
const crypto = require("crypto");
const hashes = workerData.algorithms.map((a) => crypto.createHash(a));
const ZEROS = Buffer.alloc(1024 * 1024);
parentPort.on("message", (m) => {
  if (m.zeros !== undefined) {
    for (let n = m.zeros; n > 0; n -= ZEROS.length) for (const h of hashes) h.update(n >= ZEROS.length ? ZEROS : ZEROS.subarray(0, n));
  } else if (m.memory !== undefined) {
    const bytes = new Uint8Array(m.memory, m.offset, m.length);
    for (const h of hashes) h.update(bytes);
    parentPort.postMessage({ memory: m.memory }, [m.memory]);
  } else {
    parentPort.postMessage({ digests: hashes.map((h) => h.digest("hex")) });
  }
});
`;

/** Buffers hashed but not yet back before `update` waits: what reading ahead of the hash may hold. */
const MAX_OUTSTANDING = 4;

export class HashThread {
  private readonly worker: Worker;
  /** Where each buffer in the thread goes once hashed, in order. */
  private readonly returns: ((b: Buffer) => void)[] = [];
  private readonly waiting: (() => void)[] = [];
  private digested: { resolve: (d: string[]) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(algorithms: readonly ("sha256" | "sha512")[]) {
    this.worker = new Worker(WORKER, { eval: true, workerData: { algorithms } });
    this.worker.on("message", (m: { memory?: ArrayBuffer; digests?: string[] }) => {
      if (m.memory) {
        this.returns.shift()?.(Buffer.from(m.memory));
        this.waiting.shift()?.();
      } else if (m.digests) this.digested?.resolve(m.digests);
    });
    this.worker.on("error", (err) => this.fail(err));
    this.worker.on("exit", (code) => this.fail(new Error(`the hashing thread stopped (exit ${code})`)));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.splice(0)) w();
    this.digested?.reject(this.failure);
  }

  /**
   * Hashes `bytes` (a view from the start of a buffer of its own, which moves to the
   * thread); `back` gets that buffer again once hashed. Waits while too many are out.
   */
  async update(bytes: Buffer, back: (b: Buffer) => void): Promise<void> {
    if (this.failure) throw this.failure;
    const memory = bytes.buffer;
    if (bytes.byteOffset !== 0 || memory instanceof SharedArrayBuffer) throw new Error("HashThread.update takes a view at the start of a buffer of its own");
    this.returns.push(back);
    this.worker.postMessage({ memory, offset: 0, length: bytes.length }, [memory]);
    if (this.returns.length > MAX_OUTSTANDING) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure) throw this.failure;
  }

  /** Hashes `n` zero bytes (a hole). */
  zeros(n: number): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage({ zeros: n });
  }

  /** The digests (hex) of everything given, in the order of the algorithms; the thread then ends. */
  async digests(): Promise<string[]> {
    if (this.failure) throw this.failure;
    const hex = await new Promise<string[]>((resolve, reject) => {
      this.digested = { resolve, reject };
      this.worker.postMessage({});
    });
    await this.close();
    return hex;
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners("exit");
    await this.worker.terminate();
  }
}
