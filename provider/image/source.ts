// An Image's source made local: a path as it is, or a URL downloaded to a temp file
// (through tmp-promise) once, so a failed upload never downloads again; the sha256 is
// always computed and, when given, verified before anything touches the host.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { dir as tmpDir } from "tmp-promise";
import { KvmError } from "../errors";
import { download, DownloadError } from "./download";

export interface ImageSource {
  url?: string;
  path?: string;
  sha256?: string;
}

export interface LocalImage {
  file: string;
  sha256: string;
  /** Removes the temp copy of a downloaded image. */
  cleanup(): Promise<void>;
}

/** Digests by file identity and version (device, inode, size, mtime): each file is read once. */
const digests = new Map<string, Promise<string>>();

/** The sha256 of a file's content, computed once per version of the file in this process. */
export function sha256File(file: string): Promise<string> {
  const st = fs.statSync(file);
  const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  let digest = digests.get(key);
  if (!digest) {
    digest = (async () => {
      const h = crypto.createHash("sha256");
      for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) h.update(chunk as Buffer);
      return h.digest("hex");
    })();
    digests.set(key, digest);
    digest.catch(() => digests.delete(key));
  }
  return digest;
}

/** A local source path as the program gave it, resolved against the program's directory. */
export function sourceFile(p: string): string {
  return path.resolve(p);
}

/** A temp directory for staging `what`; failures name TMPDIR and the input concerned. */
export async function stageTempDir(property: string, what: string): Promise<{ path: string; cleanup(): Promise<void> }> {
  try {
    return await tmpDir({ unsafeCleanup: true, prefix: "pulumi-kvm-" });
  } catch (err) {
    throw new KvmError("permanent", `cannot create a staging directory for ${what} in ${process.env.TMPDIR || "/tmp"} (TMPDIR): ${(err as Error).message}`, {
      property, fix: `Point TMPDIR at a writable directory with room for ${what}`, cause: err,
    });
  }
}

export async function localImage(source: ImageSource, host: string): Promise<LocalImage> {
  let file: string;
  let cleanup = async () => undefined;
  if (source.path) {
    file = sourceFile(source.path);
    if (!fs.existsSync(file)) throw new KvmError("permanent", `${file} does not exist`, { property: "source.path", fix: "Give the path of a local image file" });
  } else if (source.url) {
    const staging = await stageTempDir("source.url", "the downloaded image");
    file = `${staging.path}/image`;
    cleanup = async () => { await staging.cleanup(); };
    try {
      await download(source.url, file);
    } catch (err) {
      await cleanup();
      if (err instanceof DownloadError) {
        const fix = /ENOSPC|cannot write/.test(err.message)
          ? `Point TMPDIR at a directory with room for the image (now ${process.env.TMPDIR || "/tmp"})`
          : err.permanent ? "Check the URL" : "Check that the server is reachable; pulumi up again retries";
        throw new KvmError(err.permanent ? "permanent" : "transient", err.message, { property: "source.url", fix, cause: err });
      }
      throw err;
    }
  } else {
    throw new KvmError("permanent", "give source.path or source.url", { property: "source" });
  }
  const sha256 = await sha256File(file);
  if (source.sha256 && source.sha256.toLowerCase() !== sha256) {
    await cleanup();
    throw new KvmError("permanent", `the image's sha256 is ${sha256}, not the expected ${source.sha256}`, {
      property: "source.sha256", host, fix: "Check the URL or path and the checksum; nothing was created on the host",
    });
  }
  return { file, sha256, cleanup };
}
