// Opens an image URL as a stream of buffers, for an upload that runs while it downloads:
// failures (connect, server errors, stalls and crawls, a body that breaks) are retried with
// backoff, a broken body by resuming where it broke (an HTTP Range request; a server
// that cannot resume fails the stream); 4xx answers and redirects that can never work
// (too many, https→http, to another scheme) are final. The body is read at the
// consumer's pace: nothing is staged on disk.
import { envSecondsMs } from "../units";
import * as http from "http";
import * as https from "https";
import { log } from "../log";

export class DownloadError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

export interface DownloadOptions {
  attempts?: number;
  backoffMs?: number;
  /** A download that receives nothing for this long fails (and is retried). */
  stallMs?: number;
  /** Bytes per second below which a download crawls: measured over each stall window of waiting, it fails (and is retried). */
  minRate?: number;
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
  return envSecondsMs("PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT", 60);
}

/** The crawl bound: PULUMI_KVM_DOWNLOAD_MIN_RATE bytes per second, default 32 KiB/s. */
export function minRate(): number {
  const r = Number(process.env.PULUMI_KVM_DOWNLOAD_MIN_RATE ?? 32 * 1024);
  return Number.isFinite(r) && r >= 0 ? r : 32 * 1024;
}

const kib = (bytesPerSecond: number) => `${(bytesPerSecond / 1024).toFixed(1)} KiB/s`;

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

/** An answered request: the final URL, the body's announced length, the body itself. */
export interface OpenedDownload {
  url: string;
  length?: number;
  /** The body; fails with a (transient) DownloadError when it breaks, is truncated or stalls. */
  body: AsyncGenerator<Buffer>;
}

/** Waits for `p`, failing after `ms` with `onStall`'s error. */
function bounded<T>(p: Promise<T>, ms: number, onStall: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onStall()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The body of an answered request from byte `from`. Stalls and crawls count only while
 * this side waits for bytes (the upload may be the slower one): no byte for `stallMs`, or
 * fewer than `rate` bytes a second over `stallMs` of waiting, fails it.
 */
async function* bodyOf(
  req: http.ClientRequest,
  res: http.IncomingMessage,
  url: string,
  length: number | undefined,
  from: number,
  stallMs: number,
  rate: number,
): AsyncGenerator<Buffer> {
  let got = from;
  let waited = 0;
  let inWindow = 0;
  const failure = (why: string) =>
    new DownloadError(
      `download of ${displayUrl(url)} ${length !== undefined ? `truncated: ${got} of ${length} bytes` : `broke after ${got} bytes`} (${why})`,
      false,
    );
  const it = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let done = false;
  try {
    for (;;) {
      let r: IteratorResult<Buffer>;
      const asked = Date.now();
      try {
        r = await bounded(it.next(), stallMs, () => failure(`no data for ${stallMs / 1000} s (PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT)`));
      } catch (err) {
        throw err instanceof DownloadError ? err : failure((err as Error).message);
      }
      if (r.done) break;
      got += r.value.length;
      waited += Date.now() - asked;
      inWindow += r.value.length;
      if (waited >= stallMs) {
        const seen = inWindow / (waited / 1000);
        if (seen < rate)
          throw failure(`it crawled at ${kib(seen)} over ${(waited / 1000).toFixed(0)} s, below the bound of ${kib(rate)} (PULUMI_KVM_DOWNLOAD_MIN_RATE)`);
        waited = 0;
        inWindow = 0;
      }
      yield r.value;
    }
    if (!res.complete) throw failure("connection closed");
    if (length !== undefined && got !== length) throw failure("the server sent a different length");
    done = true;
  } finally {
    if (!done) req.destroy();
  }
}

/** The whole length from a 206 answer's Content-Range, if it starts at `from`. */
function resumedLength(res: http.IncomingMessage, from: number): number | undefined | false {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(String(res.headers["content-range"] ?? ""));
  if (!m || Number(m[1]) !== from) return false;
  return m[2] === "*" ? undefined : Number(m[2]);
}

/** One request (from byte `from`: a Range request), following redirects; resolves when the answer's headers arrive. */
function request(url: string, stallMs: number, rate: number, signal: AbortSignal | undefined, from = 0, redirects = 0): Promise<OpenedDownload> {
  return new Promise((resolve, reject) => {
    let stalled: string | undefined;
    const get = url.startsWith("https:") ? https.get : http.get;
    const headers: Record<string, string> = { "user-agent": "pulumi-kvm", ...(from > 0 ? { range: `bytes=${from}-` } : {}) };
    const req = get(url, { signal, headers }, (res) => {
      req.setTimeout(0);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        try {
          resolve(request(redirectTarget(url, res.headers.location, redirects), stallMs, rate, signal, from, redirects + 1));
        } catch (err) {
          reject(err);
        }
        return;
      }
      if (from > 0) {
        const length = status === 206 ? resumedLength(res, from) : false;
        if (length === false) {
          res.resume();
          reject(
            new CannotResume(
              `${displayUrl(url)} broke at byte ${from} and its server cannot resume there (HTTP ${status} to a Range request); the download starts over on the next run`,
            ),
          );
          return;
        }
        resolve({ url, length, body: bodyOf(req, res, url, length, from, stallMs, rate) });
        return;
      }
      if (status !== 200) {
        res.resume();
        reject(new DownloadError(`${displayUrl(url)} answered HTTP ${status}`, status >= 400 && status < 500 && status !== 408 && status !== 429));
        return;
      }
      const length = res.headers["content-length"] !== undefined ? Number(res.headers["content-length"]) : undefined;
      resolve({ url, length, body: bodyOf(req, res, url, length, 0, stallMs, rate) });
    });
    // no answer for stallMs while connecting: the server or the path hangs
    req.setTimeout(stallMs, () => {
      stalled = `no data for ${stallMs / 1000} s (PULUMI_KVM_DOWNLOAD_STALL_TIMEOUT)`;
      req.destroy(new Error(stalled));
    });
    req.on("error", (err) => reject(new DownloadError(`cannot fetch ${displayUrl(url)}: ${stalled ?? err.message}`, false)));
  });
}

/** A server that answers a Range request with the whole body (or an error): the stream cannot go on. */
class CannotResume extends DownloadError {
  constructor(message: string) {
    super(message, false);
  }
}

/** Retries `attempt` with backoff while its failure may pass. */
async function withRetries<T>(what: string, opts: DownloadOptions, attempt: () => Promise<T>): Promise<T> {
  const attempts = opts.attempts ?? 4;
  const backoff = opts.backoffMs ?? 1000;
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      const e = err as DownloadError;
      if (!(e instanceof DownloadError) || e.permanent || i >= attempts || opts.signal?.aborted) throw e;
      log(`${what} attempt ${i} of ${attempts} failed (${e.message}); retrying`, 0);
      await new Promise((r) => setTimeout(r, backoff * 2 ** (i - 1)));
    }
  }
}

/** The body across breaks: each break resumes from the byte it broke at, within the attempts. */
async function* resumingBody(first: OpenedDownload, stallMs: number, rate: number, opts: DownloadOptions): AsyncGenerator<Buffer> {
  let got = 0;
  let body: AsyncGenerator<Buffer> | undefined = first.body;
  let breaks = 0;
  for (;;) {
    try {
      body ??= (await request(first.url, stallMs, rate, opts.signal, got)).body;
      for await (const b of body) {
        got += b.length;
        yield b;
      }
      return;
    } catch (err) {
      if (!(err instanceof DownloadError) || err instanceof CannotResume || err.permanent || ++breaks >= (opts.attempts ?? 4) || opts.signal?.aborted)
        throw err;
      log(`${err.message}; resuming at byte ${got}`, 0);
      await new Promise((r) => setTimeout(r, (opts.backoffMs ?? 1000) * 2 ** (breaks - 1)));
      body = undefined;
    }
  }
}

/** Opens `url`, retrying what may pass on a later attempt; the body resumes where it breaks. */
export async function openDownload(url: string, opts: DownloadOptions = {}): Promise<OpenedDownload> {
  const stallMs = opts.stallMs ?? stallTimeoutMs();
  const rate = opts.minRate ?? minRate();
  const first = await withRetries("download", opts, () => request(url, stallMs, rate, opts.signal));
  return { ...first, body: resumingBody(first, stallMs, rate, opts) };
}

/**
 * The length a URL announces (a HEAD request, redirects followed as a download follows
 * them), for preview's free-space check; undefined when the server does not say or cannot
 * be asked within `ms` (the download itself reports that).
 */
export function announcedLength(url: string, ms = 10_000, redirects = 0): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = url.startsWith("https:") ? https.request : http.request;
    const req = request(url, { method: "HEAD", headers: { "user-agent": "pulumi-kvm" } }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        try {
          resolve(announcedLength(redirectTarget(url, res.headers.location, redirects), ms, redirects + 1));
        } catch {
          resolve(undefined);
        }
        return;
      }
      const length = Number(res.headers["content-length"]);
      resolve(status === 200 && Number.isSafeInteger(length) && length >= 0 ? length : undefined);
    });
    req.setTimeout(ms, () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}
