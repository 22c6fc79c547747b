// Temporary folders of the tests and benchmarks, made by tmp-promise: each is removed,
// with what it holds, when the process exits (a test that fails half-way leaves nothing).
import { dirSync, setGracefulCleanup } from "tmp-promise";

setGracefulCleanup();

/** A new folder of this process's own (mode 0700), removed at exit. */
export function tempDir(prefix: string): string {
  return dirSync({ prefix, unsafeCleanup: true }).name;
}
