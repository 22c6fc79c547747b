// `check` as Pulumi calls it before create: returns the filled inputs, failing the test
// with the reported failures if there are any.
import * as assert from "assert";

interface Checkable<I> {
  check(olds: any, news: I): Promise<{ inputs: I; failures: { property: string; reason: string }[] }>;
}

export async function checked<I>(p: Checkable<I>, news: I): Promise<I> {
  const r = await p.check(undefined, news);
  assert.deepStrictEqual(r.failures, [], JSON.stringify(r.failures));
  return r.inputs;
}
