// Downloads an image URL to a temp file with retries: server errors and broken or
// truncated bodies are retried with backoff; 4xx answers are final.
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import { log } from "../log";

export class DownloadError extends Error {
  constructor(message: string, readonly permanent: boolean) {
    super(message);
    this.name = "DownloadError";
  }
}

export interface DownloadOptions {
  attempts?: number;
  backoffMs?: number;
  signal?: AbortSignal;
}

function once(url: string, file: string, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith("https:") ? https.get : http.get;
    const req = get(url, { signal, headers: { "user-agent": "pulumi-kvm" } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        resolve(once(new URL(res.headers.location, url).toString(), file, signal));
        return;
      }
      if (status !== 200) {
        res.resume();
        reject(new DownloadError(`${url} answered HTTP ${status}`, status >= 400 && status < 500 && status !== 408 && status !== 429));
        return;
      }
      const expected = res.headers["content-length"] !== undefined ? Number(res.headers["content-length"]) : undefined;
      const out = fs.createWriteStream(file);
      let got = 0;
      res.on("data", (d: Buffer) => { got += d.length; });
      res.pipe(out);
      const fail = (err: Error) => {
        out.destroy();
        const of = expected !== undefined ? `truncated: ${got} of ${expected} bytes` : `broke after ${got} bytes`;
        reject(new DownloadError(`download of ${url} ${of} (${err.message})`, false));
      };
      res.on("error", fail);
      res.on("aborted", () => fail(new Error("connection closed")));
      out.on("error", (err) => reject(new DownloadError(`cannot write ${file}: ${err.message}`, true)));
      out.on("finish", () => {
        if (expected !== undefined && got !== expected) reject(new DownloadError(`download of ${url} is truncated: ${got} of ${expected} bytes`, false));
        else resolve(got);
      });
    });
    req.on("error", (err) => reject(new DownloadError(`cannot fetch ${url}: ${err.message}`, false)));
  });
}

export async function download(url: string, file: string, opts: DownloadOptions = {}): Promise<number> {
  const attempts = opts.attempts ?? 4;
  const backoff = opts.backoffMs ?? 1000;
  for (let i = 1; ; i++) {
    try {
      return await once(url, file, opts.signal);
    } catch (err) {
      const e = err as DownloadError;
      if (e.permanent || i >= attempts || opts.signal?.aborted) throw e;
      log(`download attempt ${i} of ${attempts} failed (${e.message}); retrying`, 0);
      await new Promise((r) => setTimeout(r, backoff * 2 ** (i - 1)));
    }
  }
}
