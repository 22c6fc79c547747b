import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { readImageHeader } from "../provider/image/header";
import { carriesSecret } from "../provider/resources/object-types";
import { StorageArgs, StorageResource } from "./storage";
import { providerShim } from "./shim";
import { MODULE, registered, withLegacyAlias } from "./resource-type";

export interface ImageSourceArgs {
  /**
   * http(s) URL, downloaded by the client then uploaded. A URL with user:password@ or a
   * query (a signed token) makes the source a secret.
   */
  url?: pulumi.Input<string>;
  /** A local file. */
  path?: pulumi.Input<string>;
  /** Expected sha256 (hex), verified on the bytes sent before the image counts as made. At most one of sha256, sha512, checksumUrl. */
  sha256?: pulumi.Input<string>;
  /** Expected sha512 (hex), as Debian publishes them (SHA512SUMS). */
  sha512?: pulumi.Input<string>;
  /**
   * A SHA256SUMS or SHA512SUMS file (http/https); its line for the image's file name is
   * the expected digest. The file's own integrity is yours: prefer https. Credentials in it make the source a secret.
   */
  checksumUrl?: pulumi.Input<string>;
}

export interface ImageArgs extends StorageArgs {
  /** Where the bytes come from. Other bytes (another checksum) replace; the same bytes from another place are only recorded. */
  source: pulumi.Input<ImageSourceArgs>;
  /** Asserts the format, which is always read from the image header. A change replaces. */
  format?: pulumi.Input<"qcow2" | "raw">;
}

/** A base disk image uploaded into a storage pool. */
export class Image extends StorageResource {
  public readonly sha256!: pulumi.Output<string>;
  /** A local source's virtual size, read from its header by the program (known in a first preview): what a Volume over it needs at least. */
  public readonly localVirtualSize: pulumi.Output<number | undefined>;
  /** When the source gave a sha512 (or its checksum file did). */
  public readonly sha512!: pulumi.Output<string | undefined>;

  constructor(name: string, args: ImageArgs, opts?: pulumi.CustomResourceOptions) {
    const source = pulumi.output(args.source).apply((s) => (carriesSecret("ImageSource", s) ? pulumi.secret(s) : s));
    super(
      providerShim,
      name,
      registered("Image", name, args, ["path", "key", "capacityBytes", "sha256", "sha512", "format", "identity"], { source }),
      withLegacyAlias(opts),
      MODULE,
      "Image",
    );
    this.localVirtualSize = pulumi.output(args.source).apply((s) => (s?.path ? virtualSizeOf(s.path) : undefined));
  }
}

/** The virtual size in a local image's header; undefined when it cannot be read (check reports that). */
function virtualSizeOf(file: string): number | undefined {
  try {
    return readImageHeader(path.resolve(file)).virtualSize;
  } catch {
    return undefined;
  }
}
