// The Image's properties, declared once (properties.ts): other bytes replace it, the
// same bytes from another place are only recorded.
import { deepEqual } from "../../resources/deep-equal";
import { isUnknown } from "../../resources/unknown";
import type { ImageSource } from "../../image/source";
import type { HostConfig } from "../../ssh/host";
import type { VolumeIdentity } from "../volume/identity";
import { adoptProperty, Declaration, hostProperty, nameProperty, Property, resourceNameProperty } from "../../resources/properties";

export interface ImageInputs {
  host: HostConfig;
  pool: string;
  name: string;
  resourceName?: string;
  source: ImageSource;
  format?: "qcow2" | "raw";
  adopt?: boolean;
}

export interface ImageOutputs extends ImageInputs {
  kvmKind: "Image";
  path: string;
  key: string;
  format: "qcow2" | "raw";
  capacityBytes: number;
  sha256: string;
  /** When the source gave a sha512 (or its checksum file did). */
  sha512?: string;
  /** Its modification time once uploaded: nothing writes a base image after that (volume-identity.ts). */
  identity?: VolumeIdentity;
}

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
  doc: "A base disk image uploaded into a storage pool, from a URL or a local file, its bytes verified",
  namedBy: ["name", "pool"],
  outputs: {
    path: { type: "string", doc: "the volume's file on the host" },
    key: { type: "string", doc: "libvirt's key of the volume" },
    capacityBytes: { type: "number", doc: "the virtual size in bytes" },
    sha256: { type: "string", doc: "the sha256 of the bytes uploaded" },
    sha512: { type: "string", doc: "their sha512, when the source gave one (or its checksum file did)", optional: true },
    identity: { type: "VolumeIdentity", doc: "what proves the volume on the host is the one uploaded", internal: true, optional: true },
  },
  properties: {
    ...inPoolProperties(),
    source: {
      type: "ImageSource",
      doc: "where the bytes come from, and the checksum they must have",
      required: true,
      // the same bytes from another place (a checkout, a mirror) only update the record
      change: "record",
      replaceWhen: { doc: "other bytes (another checksum, or another place when none is given)", test: otherContent },
      listFields: true,
    },
    format: {
      type: '"qcow2" | "raw"',
      doc: 'asserts `"qcow2"` or `"raw"`; the format always comes from the file\'s header (qcow2 magic, else raw), never its name. vmdk, vdi, vhdx, vpc, qed and compressed files are refused with the `qemu-img convert` to run',
      defaultDoc: "from the header",
      filled: true,
      // the record holds the header's format: only an asserted one counts
      onlyWhenGiven: true,
      change: "replace",
    },
    adopt: adoptProperty("a volume of that name already in the pool when it holds the source's bytes"),
  },
};
