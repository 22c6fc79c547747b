// An upload whose first bytes are held back: the volume starts with a mark of its own
// (volume-identity.ts, "head:<token>") until the upload's last write puts the real head
// in place, so a half-uploaded Image can be proven to be the one made, by any process,
// and a same-named volume someone made meanwhile cannot. The chunks handed on are new
// buffers where they differ: a read buffer may still be hashed elsewhere.
import type { UploadChunk } from "../rpc/stream";

export interface HeldHead {
  /** The chunks as uploaded, the mark in place of the first bytes. */
  chunks: AsyncGenerator<UploadChunk>;
  /** The bytes the mark stands in for, once the chunks were all read (zeros where a hole was). */
  head(): Buffer;
}

export function holdHead(source: AsyncIterable<UploadChunk>, mark: Buffer): HeldHead {
  const head = Buffer.alloc(mark.length);
  let at = 0;
  let read = false;
  async function* chunks(): AsyncGenerator<UploadChunk> {
    for await (const chunk of source) {
      const length = "data" in chunk ? chunk.data.length : chunk.hole;
      const covered = Math.min(length, mark.length - at);
      if (covered <= 0) {
        yield chunk;
        continue;
      }
      if ("data" in chunk) {
        chunk.data.copy(head, at, 0, covered);
        yield { data: Buffer.concat([mark.subarray(at, at + covered), chunk.data.subarray(covered)]) };
      } else {
        yield { data: mark.subarray(at, at + covered) };
        if (length > covered) yield { hole: length - covered };
      }
      at += covered;
    }
    read = true;
  }
  return {
    chunks: chunks(),
    head() {
      if (!read) throw new Error("the head is known once every chunk was read");
      return head.subarray(0, at);
    },
  };
}
