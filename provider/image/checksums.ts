// Checksums as distributions publish them: a SHA256SUMS or SHA512SUMS file (GNU
// coreutils' "HEX  NAME" or "HEX *NAME" lines, or BSD's "SHA512 (NAME) = HEX"), from
// which the line of the image's file name gives its digest. The file is fetched as an
// image is (redirect rules of download.ts), bounded in size and time.
import * as http from "http";
import * as https from "https";
import { displayUrl, DownloadError, redirectTarget } from "./download";

export interface PublishedDigest {
  algorithm: "sha256" | "sha512";
  digest: string;
}

const BY_LENGTH: Record<number, PublishedDigest["algorithm"]> = { 64: "sha256", 128: "sha512" };

/** The digest a checksum file gives for `fileName`, undefined when no line names it. */
export function digestFor(sums: string, fileName: string): PublishedDigest | undefined {
  for (const line of sums.split(/\r?\n/)) {
    const gnu = /^([0-9a-fA-F]+) [ *](.+)$/.exec(line.trim());
    const bsd = /^(SHA256|SHA512) \((.+)\) = ([0-9a-fA-F]+)$/.exec(line.trim());
    const [hex, name] = gnu ? [gnu[1], gnu[2]] : bsd ? [bsd[3], bsd[2]] : [];
    if (!hex || !name || name.replace(/^\.\//, "") !== fileName) continue;
    const algorithm = BY_LENGTH[hex.length];
    if (algorithm) return { algorithm, digest: hex.toLowerCase() };
  }
  return undefined;
}

/** A checksum file's text: at most `maxBytes`, within `ms`. */
export function fetchChecksums(url: string, maxBytes = 1024 * 1024, ms = 15_000, redirects = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith("https:") ? https.get : http.get;
    const req = get(url, { headers: { "user-agent": "pulumi-kvm" } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        try {
          resolve(fetchChecksums(redirectTarget(url, res.headers.location, redirects), maxBytes, ms, redirects + 1));
        } catch (err) {
          reject(err);
        }
        return;
      }
      if (status !== 200) {
        res.resume();
        reject(new DownloadError(`${displayUrl(url)} answered HTTP ${status}`, status >= 400 && status < 500));
        return;
      }
      const parts: Buffer[] = [];
      let size = 0;
      res.on("data", (b: Buffer) => {
        size += b.length;
        if (size > maxBytes) req.destroy(new Error(`it is larger than ${maxBytes} bytes: not a checksum file`));
        else parts.push(b);
      });
      res.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    });
    req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms / 1000} s`)));
    req.on("error", (err) => reject(new DownloadError(`cannot fetch ${displayUrl(url)}: ${err.message}`, false)));
  });
}
