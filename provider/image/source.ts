// An Image's bytes as the upload reads them: a local file, or an http(s) URL downloaded
// and hashed on another thread while it uploads (no copy on disk; the download runs at
// the upload's pace). The header is read from the first bytes the upload sends, and the
// sha256 is that of the bytes sent, verified before the image counts as made.
import * as fs from "fs";
import * as path from "path";
import { KvmError } from "../errors";
import { fileData, Hole } from "./chunks";
import { fileVersion, rememberDigests } from "./file-digest";
import { Digests, HashThread } from "./hash-thread";
import { displayUrl, DownloadError } from "./download";
import { downloadInThread } from "./download-thread";
import { HEAD_BYTES, ImageHeader, parseImageHeader, UnsupportedImageFormat } from "./header";

export interface ImageSource {
  url?: string;
  path?: string;
  sha256?: string;
  sha512?: string;
  /** A SHA256SUMS or SHA512SUMS file whose line for the image's file name check turns into sha256 or sha512. */
  checksumUrl?: string;
}

/** A local source path as the program gave it, resolved against the program's directory. */
export function sourceFile(p: string): string {
  return path.resolve(p);
}

export interface ImageStream {
  header: ImageHeader;
  /** The image from its first byte, each byte read once (a file's holes not at all). A buffer is valid until the next is read. */
  body: AsyncIterable<Buffer | Hole>;
  /** The digests of the whole image as sent; only after `body` ended. */
  digests(): Promise<Digests>;
  /** Stops a download the upload did not finish. */
  close(): Promise<void>;
}

/**
 * A local image file. Its header is read from the first bytes the upload sends and its
 * sha256 computed on the very bytes it sends (each read hashed once the upload copied it
 * into its frames; holes as zeros): a file changed after check (or while it uploads) is
 * judged by what reached the host, never by an earlier read.
 */
async function fileImage(file: string, sha512: boolean): Promise<ImageStream> {
  if (!fs.existsSync(file)) throw new KvmError("permanent", `${file} does not exist`, { property: "source.path", fix: "Give the path of a local image file" });
  const version = fileVersion(file);
  const fileSize = fs.statSync(file).size;
  // the upload copies each read into its frames before it asks for the next; then the
  // hashing thread has it (holes as zeros), in the order of the file
  const hasher = new HashThread(sha512 ? ["sha256", "sha512"] : ["sha256"]);
  const reads = fileData(file, { reuse: true, done: (item, back) => (Buffer.isBuffer(item) ? hasher.update(item, back) : hasher.zeros(item.hole)) });
  const { head, whole, stop } = await peekHead(reads).catch(async (err: unknown) => {
    await hasher.close(); // the file unreadable: no thread left behind
    throw err;
  });
  const close = async () => {
    await stop();
    await hasher.close();
  };
  let header: ImageHeader;
  try {
    header = parseImageHeader(head, fileSize);
  } catch (err) {
    await close();
    throw err;
  }
  let digests: Digests | undefined;
  async function* hashed(): AsyncGenerator<Buffer | Hole> {
    yield* whole;
    const [sha256, sha512sum] = await hasher.digests();
    digests = { sha256, ...(sha512sum ? { sha512: sha512sum } : {}) };
    // what was sent is the file's content only if the file stayed this version throughout
    rememberDigests(file, version, digests);
  }
  return {
    header,
    body: hashed(),
    close,
    digests: async () => {
      if (!digests) throw new Error("the image's digests are known only once all of it was sent");
      return digests;
    },
  };
}

/**
 * Reads the first HEAD_BYTES (or all, if shorter) of `body`, holes as zeros; returns them
 * and the whole body again, whose first items are copies of what was read (a reused
 * buffer is not held).
 */
async function peekHead<T extends Buffer | Hole>(body: AsyncGenerator<T>): Promise<{ head: Buffer; whole: AsyncGenerator<T>; stop: () => Promise<void> }> {
  const first: T[] = [];
  const bytes: Buffer[] = [];
  let have = 0;
  while (have < HEAD_BYTES) {
    const r = await body.next();
    if (r.done) break;
    const item = Buffer.isBuffer(r.value) ? (Buffer.from(r.value) as T) : r.value;
    first.push(item);
    const b = Buffer.isBuffer(item) ? item : Buffer.alloc(Math.min(item.hole, HEAD_BYTES - have));
    bytes.push(b);
    have += b.length;
  }
  async function* whole(): AsyncGenerator<T> {
    yield* first;
    yield* body;
  }
  // ends the reading (closing the file) wherever the upload stopped, or before it began
  const stop = async () => {
    await body.return(undefined);
  };
  return { head: Buffer.concat(bytes).subarray(0, HEAD_BYTES), whole: whole(), stop };
}

/** An image URL downloaded (and hashed) on another thread while it uploads; the size comes from the qcow2 header or Content-Length. */
async function urlImage(url: string, host: string, sha512: boolean): Promise<ImageStream> {
  const download = await downloadInThread(url, sha512);
  try {
    const { head, whole } = await peekHead(download.body);
    const header = parseImageHeader(head, download.length ?? 0);
    if (header.format === "raw" && download.length === undefined) {
      throw new KvmError(
        "permanent",
        `${displayUrl(url)} is a raw image and its server sends no Content-Length: the volume's size must be known before the upload`,
        {
          property: "source.url",
          host,
          fix: "Serve it with a Content-Length, convert it to qcow2, or download it and give source.path",
        },
      );
    }
    return { header, body: whole, close: download.close, digests: () => download.digests };
  } catch (err) {
    await download.close();
    throw err;
  }
}

/** A download's failure as the resource reports it (other errors pass through). */
export function downloadFailure(err: unknown): unknown {
  if (!(err instanceof DownloadError)) return err;
  return new KvmError(err.permanent ? "permanent" : "transient", err.message, {
    property: "source.url",
    fix: err.permanent ? "Check the URL" : "Check that the server is reachable; pulumi up again retries",
    cause: err,
  });
}

/** Opens an Image's source for one upload pass; a refused header or a failed download names the input. */
export async function openImage(source: ImageSource, host: string): Promise<ImageStream> {
  if (!source.path && !source.url) throw new KvmError("permanent", "give source.path or source.url", { property: "source" });
  try {
    const sha512 = !!source.sha512;
    return source.path ? await fileImage(sourceFile(source.path), sha512) : await urlImage(source.url!, host, sha512);
  } catch (err) {
    if (err instanceof UnsupportedImageFormat) throw new KvmError("permanent", err.message, { property: "source", host });
    throw downloadFailure(err);
  }
}

/** Refuses bytes whose sha256 or sha512 is not the one the program gave (or its checksum file); nothing counts as made. */
export function verifyDigests(source: ImageSource, digests: Digests, host: string): void {
  for (const algorithm of ["sha256", "sha512"] as const) {
    const expected = source[algorithm]?.toLowerCase();
    if (expected && expected !== digests[algorithm]) {
      throw new KvmError(
        "permanent",
        `the image's ${algorithm} is ${digests[algorithm]}, not the expected ${expected}${source.checksumUrl ? ` (from ${displayUrl(source.checksumUrl)})` : ""}`,
        {
          property: source.checksumUrl ? "source.checksumUrl" : `source.${algorithm}`,
          host,
          fix: "Check the URL or path and the checksum; nothing was left on the host",
        },
      );
    }
  }
}
