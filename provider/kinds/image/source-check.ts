// An Image's source as check validates it: one of url and path, a checksum pinned or
// published (checksumUrl), and a local file's sha256 when the diff needs it.
import * as fs from "fs";
import * as path from "path";
import { displayUrl } from "../../image/download";
import { fileDigest, sha256File } from "../../image/file-digest";
import { digestFor, fetchChecksums } from "../../image/checksums";
import { ImageSource, sourceFile } from "../../image/source";
import { warn } from "../../log";
import { Failures } from "../../resources/input-checks";
import { isUnknown } from "../../resources/unknown";

/**
 * `known`: the resource is in the stack, so its diff needs the file's sha256 now. A new
 * image's file is hashed while it uploads instead, unless the program gave a sha256 to
 * verify in preview.
 */
export async function checkSource(failures: Failures, source: unknown, known: boolean): Promise<ImageSource | undefined> {
  if (isUnknown(source)) return source as ImageSource;
  const s = (source ?? {}) as ImageSource;
  const given = [s.url, s.path].filter((v) => v !== undefined && v !== null && v !== "");
  if (given.length !== 1) {
    failures.push({ property: "source", reason: "source needs exactly one of url (http/https) or path (a local file)" });
    return s;
  }
  const out = { ...s };
  if (s.url !== undefined && !isUnknown(s.url)) {
    let u: URL | undefined;
    try {
      u = new URL(String(s.url));
    } catch {
      /* reported below */
    }
    if (!u || !["http:", "https:"].includes(u.protocol)) {
      failures.push({ property: "source.url", reason: `source.url must be an http:// or https:// URL, got ${displayUrl(String(s.url))}` });
    } else if (u.protocol === "http:" && !s.sha256 && !s.sha512 && !s.checksumUrl) {
      warn(
        `source.url ${displayUrl(u.toString())} is plain http and has no checksum: anyone on the path can change the image. Give source.sha256, sha512 or checksumUrl, or use https`,
      );
    }
  }
  const checksums = (["sha256", "sha512", "checksumUrl"] as const).filter((k) => s[k] !== undefined);
  if (checksums.length > 1)
    failures.push({
      property: `source.${checksums[1]}`,
      reason: `give one of source.sha256, source.sha512 and source.checksumUrl, not ${checksums.join(" and ")}`,
    });
  for (const [k, digits, tool] of [
    ["sha256", 64, "sha256sum"],
    ["sha512", 128, "sha512sum"],
  ] as const) {
    if (s[k] !== undefined && !isUnknown(s[k]) && !new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(String(s[k]))) {
      failures.push({ property: `source.${k}`, reason: `source.${k} must be ${digits} hex digits (${tool}'s output)` });
    }
    if (out[k] && !isUnknown(out[k])) out[k] = String(out[k]).toLowerCase();
  }
  if (s.checksumUrl !== undefined && !isUnknown(s.checksumUrl) && !isUnknown(s.url) && !isUnknown(s.path) && !failures.length) {
    Object.assign(out, await publishedDigest(failures, String(s.checksumUrl), String(s.url ?? s.path)));
  }
  if (s.path !== undefined && !isUnknown(s.path) && !isUnknown(s.sha256) && !isUnknown(out.sha512)) {
    // the path stays as written (another checkout resolves it to its own directory);
    // the content, by its sha256, is what identifies the image
    const file = sourceFile(String(s.path));
    if (!fs.existsSync(file)) failures.push({ property: "source.path", reason: `source.path ${file} does not exist on this machine` });
    else if (!fs.statSync(file).isFile()) failures.push({ property: "source.path", reason: `source.path ${file} is not a file` });
    else if (!failures.length && (known || out.sha256 || out.sha512)) {
      if (out.sha512) {
        const sha512 = await fileDigest(file, "sha512");
        if (out.sha512 !== sha512)
          failures.push({
            property: s.checksumUrl ? "source.checksumUrl" : "source.sha512",
            reason: `the sha512 ${s.checksumUrl ? `${displayUrl(s.checksumUrl)} gives` : "given"} is ${out.sha512} but ${file} has sha512 ${sha512}: fix the checksum or the file`,
          });
      }
      const sha256 = await sha256File(file);
      if (out.sha256 && out.sha256 !== sha256) {
        failures.push({
          property: s.checksumUrl ? "source.checksumUrl" : "source.sha256",
          reason: `source.sha256 is ${out.sha256} but ${file} has sha256 ${sha256}: fix the checksum or the file`,
        });
      }
      out.sha256 = sha256;
    }
  }
  return out;
}

/** The digest a checksum file publishes for the image's file name, as source.sha256 or source.sha512. */
async function publishedDigest(failures: Failures, checksumUrl: string, image: string): Promise<Partial<ImageSource>> {
  let u: URL | undefined;
  try {
    u = new URL(checksumUrl);
  } catch {
    /* reported below */
  }
  if (!u || !["http:", "https:"].includes(u.protocol)) {
    failures.push({
      property: "source.checksumUrl",
      reason: `source.checksumUrl must be an http:// or https:// URL of a SHA256SUMS or SHA512SUMS file, got ${displayUrl(checksumUrl)}`,
    });
    return {};
  }
  const fileName = path.posix.basename(/^https?:/.test(image) ? new URL(image).pathname : image.split(path.sep).join("/"));
  try {
    const found = digestFor(await fetchChecksums(checksumUrl), fileName);
    if (found) return { [found.algorithm]: found.digest };
    failures.push({
      property: "source.checksumUrl",
      reason: `${displayUrl(checksumUrl)} has no sha256 or sha512 line for "${fileName}", the image's file name`,
    });
  } catch (err) {
    failures.push({ property: "source.checksumUrl", reason: `source.checksumUrl: ${(err as Error).message}` });
  }
  return {};
}
