// What the Image class does beyond registering its inputs (its class is generated:
// codegen/typescript.ts): a source with credentials goes as a secret, and the program
// reads a local source's virtual size itself, so a Volume over it knows it in a first preview.
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { readImageHeader } from "../provider/image/header";
import { carriesSecret } from "../provider/resources/object-types";
import type { ImageSourceArgs } from "./types";

interface ImageSourceInput {
  source: pulumi.Input<ImageSourceArgs>;
}

export function imageInputs(args: ImageSourceInput): pulumi.Inputs {
  return { source: pulumi.output(args.source).apply((s) => (carriesSecret("ImageSource", s) ? pulumi.secret(s) : s)) };
}

/** A local source's virtual size, from its header; undefined for a URL, or when the header cannot be read (check reports that). */
export function localVirtualSize(args: ImageSourceInput): pulumi.Output<number | undefined> {
  return pulumi.output(args.source).apply((s) => (s?.path ? virtualSizeOf(s.path) : undefined));
}

function virtualSizeOf(file: string): number | undefined {
  try {
    return readImageHeader(path.resolve(file)).virtualSize;
  } catch {
    return undefined;
  }
}
