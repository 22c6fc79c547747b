// Pulumi's secret wrappers, as the provider protocol carries them and as a stack export
// with --show-secrets writes them: one reader for the plugin and the CLI.
import * as assert from "assert";
import { reveal, secretOf } from "../../provider/pulumi-secrets";

const SIG = "4dabf18193072939515e22adb298388d";

describe("Pulumi's secret values", () => {
  it("reveals a secret on the wire, nested in objects and lists, and says one was there", () => {
    assert.deepStrictEqual(reveal({ host: { address: "hv1", privateKey: secretOf("KEY") }, tags: [secretOf("a"), "b"] }), {
      value: { host: { address: "hv1", privateKey: "KEY" }, tags: ["a", "b"] },
      secret: true,
    });
    assert.deepStrictEqual(reveal({ address: "hv1" }), { value: { address: "hv1" }, secret: false });
  });

  it("reveals a stack export's secret from its plaintext JSON, and a secret inside a secret", () => {
    const exported = { [SIG]: "1b47061264138c4ac30d75fd1eb44270", plaintext: JSON.stringify({ privateKey: "KEY" }) };
    assert.deepStrictEqual(reveal({ host: exported }).value, { host: { privateKey: "KEY" } });
    assert.deepStrictEqual(reveal(secretOf(secretOf(3))), { value: 3, secret: true });
  });

  it("leaves Pulumi's other special values (assets, resource references) as they are", () => {
    const reference = { [SIG]: "5cf8f73096256a8f31e491e813e4eb8e", urn: "urn:pulumi:s::p::kvm:index:Volume::v" };
    assert.deepStrictEqual(reveal(reference), { value: reference, secret: false });
  });
});
