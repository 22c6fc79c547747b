// Downloads an image URL to a temp file with retries: server errors, broken or
// truncated bodies and stalls are retried with backoff; 4xx answers and redirects that
// can never work (too many, https→http, to another scheme) are final.
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
  /** A download that receives nothing for this long fails (and is retried). */
  stallMs?: number;
  signal?: AbortSignal;
}

/** A URL as messages and logs show it: no userinfo, no query. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? "?…" : ""}`;
  } catch {
    return "(a malformed URL)";
  }
}

/** Redirects followed before giving up, as curl does. */
export const MAX_REDIRECTS = 20;

/** The stall bound: PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT seconds, default 60. */
export function stallTimeoutMs(): number {
  const s = Number(process.env.PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT ?? 60);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 60_000;
}

/** Where a redirect leads, or why it must not be followed (final: a retry cannot help). */
export function redirectTarget(from: string, location: string, redirects: number): string {
  if (redirects >= MAX_REDIRECTS) throw new DownloadError(`${displayUrl(from)} redirected more than ${MAX_REDIRECTS} times`, true);
  const to = new URL(location, from);
  if (to.protocol !== "http:" && to.protocol !== "https:") {
    throw new DownloadError(`${displayUrl(from)} redirects to a ${to.protocol} URL, which is never followed`, true);
  }
  if (new URL(from).protocol === "https:" && to.protocol === "http:") {
    throw new DownloadError(`${displayUrl(from)} redirects from https to plain http (${to.origin}); refusing the downgrade`, true);
  }
  return to.toString();
}

function once(url: string, file: string, stallMs: number, signal?: AbortSignal, redirects = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    let stalled: string | undefined;
    /** Once the body flows, a failure reports how much of it arrived. */
    let fail: ((err: Error) => void) | undefined;
    const get = url.startsWith("https:") ? https.get : http.get;
    const req = get(url, { signal, headers: { "user-agent": "pulumi-kvm" } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        try {
          resolve(once(redirectTarget(url, res.headers.location, redirects), file, stallMs, signal, redirects + 1));
        } catch (err) {
          reject(err);
        }
        return;
      }
      if (status !== 200) {
        res.resume();
        reject(new DownloadError(`${displayUrl(url)} answered HTTP ${status}`, status >= 400 && status < 500 && status !== 408 && status !== 429));
        return;
      }
      const expected = res.headers["content-length"] !== undefined ? Number(res.headers["content-length"]) : undefined;
      const out = fs.createWriteStream(file);
      let got = 0;
      res.on("data", (d: Buffer) => { got += d.length; });
      res.pipe(out);
      const broken = (err: Error) => {
        out.destroy();
        const of = expected !== undefined ? `truncated: ${got} of ${expected} bytes` : `broke after ${got} bytes`;
        reject(new DownloadError(`download of ${displayUrl(url)} ${of} (${stalled ?? err.message})`, false));
      };
      fail = broken;
      res.on("error", broken);
      res.on("aborted", () => broken(new Error("connection closed")));
      out.on("error", (err) => reject(new DownloadError(`cannot write ${file}: ${err.message}`, true)));
      out.on("finish", () => {
        if (expected !== undefined && got !== expected) reject(new DownloadError(`download of ${displayUrl(url)} is truncated: ${got} of ${expected} bytes`, false));
        else resolve(got);
      });
    });
    // no byte for stallMs, while connecting or in the body: the server or the path hangs
    req.setTimeout(stallMs, () => {
      stalled = `no data for ${stallMs / 1000} s (PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT)`;
      req.destroy(new Error(stalled));
    });
    req.on("error", (err) => (fail ? fail(err) : reject(new DownloadError(`cannot fetch ${displayUrl(url)}: ${stalled ?? err.message}`, false))));
  });
}

export async function download(url: string, file: string, opts: DownloadOptions = {}): Promise<number> {
  const attempts = opts.attempts ?? 4;
  const backoff = opts.backoffMs ?? 1000;
  const stallMs = opts.stallMs ?? stallTimeoutMs();
  for (let i = 1; ; i++) {
    try {
      return await once(url, file, stallMs, opts.signal);
    } catch (err) {
      const e = err as DownloadError;
      if (e.permanent || i >= attempts || opts.signal?.aborted) throw e;
      log(`download attempt ${i} of ${attempts} failed (${e.message}); retrying`, 0);
      await new Promise((r) => setTimeout(r, backoff * 2 ** (i - 1)));
    }
  }
}
