// `check` as Pulumi calls it: before create (no olds) or before an update of a resource
// already in the stack (olds: its recorded outputs). Returns the filled inputs, failing
// the test with the reported failures if there are any.
import * as assert from "assert";

interface Checkable<I> {
  check(olds: any, news: I): Promise<{ inputs: I; failures: { property: string; reason: string }[] }>;
}

export async function checked<I>(p: Checkable<I>, news: I, olds?: I): Promise<I> {
  const r = await p.check(olds, news);
  assert.deepStrictEqual(r.failures, [], JSON.stringify(r.failures));
  return r.inputs;
}
