// An Image's bytes as the upload reads them: a local file (its sha256 computed on
// another core meanwhile, unless check already knows it), or an http(s) URL downloaded
// and hashed on another thread while it uploads (no copy on disk; the download runs at
// the upload's pace). The header is read from the first bytes; the sha256 is verified
// before the image counts as made.
import * as fs from "fs";
import * as path from "path";
import { KvmError } from "../errors";
import { fileData, Hole } from "./chunks";
import { displayUrl, DownloadError } from "./download";
import { downloadInThread } from "./download-thread";
import { sha256File } from "./file-digest";
import { HEAD_BYTES, ImageHeader, parseImageHeader, readImageHeader, UnsupportedImageFormat } from "./header";

export interface ImageSource {
  url?: string;
  path?: string;
  sha256?: string;
}

/** A local source path as the program gave it, resolved against the program's directory. */
export function sourceFile(p: string): string {
  return path.resolve(p);
}

export interface ImageStream {
  header: ImageHeader;
  /** The image from its first byte, each byte read once (a file's holes not at all). A buffer is valid until the next is read. */
  body: AsyncIterable<Buffer | Hole>;
  /** The sha256 of the whole image; only after `body` ended. */
  sha256(): Promise<string>;
  /** Stops a download the upload did not finish. */
  close(): Promise<void>;
}

/** A local image file; hashed in a worker while it uploads, unless check already did. */
function fileImage(file: string): ImageStream {
  if (!fs.existsSync(file)) throw new KvmError("permanent", `${file} does not exist`, { property: "source.path", fix: "Give the path of a local image file" });
  const header = readImageHeader(file);
  const digest = sha256File(file);
  digest.catch(() => undefined); // awaited after the upload
  // the upload copies each read into its frames before it asks for the next
  return { header, body: fileData(file, { reuse: true }), sha256: () => digest, close: async () => undefined };
}

/** Reads the first HEAD_BYTES (or all, if shorter) of `body`; returns them and the whole body again. */
async function peekHead(body: AsyncGenerator<Buffer>): Promise<{ head: Buffer; whole: AsyncGenerator<Buffer> }> {
  const first: Buffer[] = [];
  let have = 0;
  while (have < HEAD_BYTES) {
    const r = await body.next();
    if (r.done) break;
    first.push(r.value);
    have += r.value.length;
  }
  async function* whole(): AsyncGenerator<Buffer> {
    yield* first;
    yield* body;
  }
  return { head: Buffer.concat(first, have).subarray(0, HEAD_BYTES), whole: whole() };
}

/** An image URL downloaded (and hashed) on another thread while it uploads; the size comes from the qcow2 header or Content-Length. */
async function urlImage(url: string, host: string): Promise<ImageStream> {
  const download = await downloadInThread(url);
  try {
    const { head, whole } = await peekHead(download.body);
    const header = parseImageHeader(head, download.length ?? 0);
    if (header.format === "raw" && download.length === undefined) {
      throw new KvmError("permanent", `${displayUrl(url)} is a raw image and its server sends no Content-Length: the volume's size must be known before the upload`, {
        property: "source.url", host, fix: "Serve it with a Content-Length, convert it to qcow2, or download it and give source.path",
      });
    }
    return { header, body: whole, close: download.close, sha256: () => download.sha256 };
  } catch (err) {
    await download.close();
    throw err;
  }
}

/** A download's failure as the resource reports it (other errors pass through). */
export function downloadFailure(err: unknown): unknown {
  if (!(err instanceof DownloadError)) return err;
  return new KvmError(err.permanent ? "permanent" : "transient", err.message, {
    property: "source.url", fix: err.permanent ? "Check the URL" : "Check that the server is reachable; pulumi up again retries", cause: err,
  });
}

/** Opens an Image's source for one upload pass; a refused header or a failed download names the input. */
export async function openImage(source: ImageSource, host: string): Promise<ImageStream> {
  if (!source.path && !source.url) throw new KvmError("permanent", "give source.path or source.url", { property: "source" });
  try {
    return source.path ? fileImage(sourceFile(source.path)) : await urlImage(source.url!, host);
  } catch (err) {
    if (err instanceof UnsupportedImageFormat) throw new KvmError("permanent", err.message, { property: "source", host });
    throw downloadFailure(err);
  }
}

/** Refuses bytes whose sha256 is not the one the program gave; nothing counts as made. */
export function verifySha256(source: ImageSource, sha256: string, host: string): void {
  if (source.sha256 && source.sha256.toLowerCase() !== sha256) {
    throw new KvmError("permanent", `the image's sha256 is ${sha256}, not the expected ${source.sha256}`, {
      property: "source.sha256", host, fix: "Check the URL or path and the checksum; nothing was left on the host",
    });
  }
}
