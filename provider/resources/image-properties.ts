// The Image's properties, declared once (properties.ts): other bytes replace it, the
// same bytes from another place are only recorded.
import { deepEqual, isUnknown } from "./common";
import type { ImageInputs, ImageOutputs } from "./image";
import { adoptProperty, Declaration, hostProperty, nameProperty, Property, resourceNameProperty } from "./properties";

/** Whether two sources hold other bytes: by sha256 when the new one is known, else by where they point. */
function otherContent(olds: ImageOutputs, news: ImageInputs): boolean {
  if (isUnknown(news.source)) return true;
  if (news.source?.sha256) return news.source.sha256 !== olds.sha256;
  if (news.source?.sha512 && olds.sha512) return news.source.sha512 !== olds.sha512;
  return !deepEqual(olds.source?.url, news.source?.url) || !deepEqual(olds.source?.path, news.source?.path);
}

/** What an Image and a Volume share: a volume of a pool, on a host. */
export function inPoolProperties<I extends { host: unknown }, O extends { host: unknown }>() {
  return {
    host: hostProperty<I, O>(),
    pool: { type: "string", doc: "the storage pool it goes into", default: "default", change: "replace" } as Property<I, O>,
    name: nameProperty<I, O>("the volume's name in the pool"),
    resourceName: resourceNameProperty<I, O>(),
  };
}

export const imageDeclaration: Declaration<ImageInputs, ImageOutputs> = {
  kind: "Image",
  namedBy: ["name", "pool"],
  outputs: {
    path: { type: "string", doc: "the volume's file on the host" },
    key: { type: "string", doc: "libvirt's key of the volume" },
    capacityBytes: { type: "number", doc: "the virtual size in bytes" },
    sha256: { type: "string", doc: "the sha256 of the bytes uploaded" },
    sha512: { type: "string", doc: "their sha512, when the source gave one (or its checksum file did)" },
    identity: { type: "object", doc: "what proves the volume on the host is the one uploaded", internal: true },
  },
  properties: {
    ...inPoolProperties(),
    source: {
      type: "{ url | path, sha256?, sha512?, checksumUrl? }",
      doc: "where the bytes come from, and the checksum they must have",
      required: true,
      // the same bytes from another place (a checkout, a mirror) only update the record
      change: "record",
      replaceWhen: { doc: "other bytes (another checksum, or another place when none is given)", test: otherContent },
      fields: {
        "url / path": {
          type: "string",
          doc: "exactly one: an http(s) URL (streamed to the host while it downloads, nothing staged on disk; see Downloads) or a local file",
        },
        sha256: {
          type: "string",
          doc: "for a local file: verified in `check` (so `pulumi preview` fails on a mismatch), and again on the bytes the upload sent. For a URL: verified as the bytes arrive. On a mismatch the volume they went into is deleted and the create fails",
        },
        sha512: {
          type: "string",
          doc: "the same with a sha512, as Debian publishes them (`SHA512SUMS`). At most one of `sha256`, `sha512`, `checksumUrl`",
        },
        checksumUrl: {
          type: "string",
          doc: "an http(s) URL of a `SHA256SUMS` or `SHA512SUMS` file (GNU `HEX  NAME` / `HEX *NAME` lines, or BSD `SHA512 (NAME) = HEX`): `check` fetches it (at most 1 MiB) and takes the line of the image's file name as its `sha256` or `sha512`, failing on `source.checksumUrl` when there is none. The checksum file's own integrity is yours to choose: an https URL of the distribution's site, or a `sha512` pinned in the program",
        },
      },
    },
    format: {
      type: '"qcow2" | "raw"',
      doc: 'asserts `"qcow2"` or `"raw"`; the format always comes from the file\'s header (qcow2 magic, else raw), never its name. vmdk, vdi, vhdx, vpc, qed and compressed files are refused with the `qemu-img convert` to run',
      defaultDoc: "from the header",
      // the record holds the header's format: only an asserted one counts
      onlyWhenGiven: true,
      change: "replace",
    },
    adopt: adoptProperty("a volume of that name already in the pool when it holds the source's bytes"),
  },
};
