// What every check of a kind named on its host starts with (resources/named-check.ts),
// derived from the kind's declaration: each declared true/false input refuses anything else,
// naming it, for every kind; and a Domain's own check goes through it.
import * as assert from "assert";
import { DECLARATIONS, KIND_NAMES } from "../../provider/kinds";
import { checkInputs, DomainInputs } from "../../provider/kinds/domain/inputs";
import { Failures } from "../../provider/resources/input-checks";
import { checkNamedInputs } from "../../provider/resources/named-check";

describe("the named kinds' common check", () => {
  it("refuses a declared boolean given as anything else, for every kind, naming each", () => {
    for (const kind of KIND_NAMES) {
      const declaration = DECLARATIONS[kind];
      const booleans = Object.entries<{ type: string }>(declaration.properties)
        .filter(([, p]) => p.type === "boolean")
        .map(([k]) => k);
      const failures: Failures = [];
      const inputs = checkNamedInputs(failures, declaration, { host: { address: "hv1" }, name: "x", ...Object.fromEntries(booleans.map((k) => [k, "yes"])) });
      assert.deepStrictEqual(
        failures.map((f) => f.property),
        booleans,
        `${kind}: ${JSON.stringify(failures)}`,
      );
      assert.strictEqual(inputs.name, "x");
    }
  });

  it("takes the resource's name when no name is given, and fills in the declared defaults", () => {
    const failures: Failures = [];
    const inputs = checkNamedInputs(failures, DECLARATIONS.Network, { host: { address: "hv1" }, name: undefined as unknown as string, resourceName: "lan" });
    assert.deepStrictEqual(failures, []);
    assert.strictEqual(inputs.name, "lan");
    assert.strictEqual((inputs as { autostart?: boolean }).autostart, true, "the declared default");
  });

  it("refuses a Domain's qemuAgent given as a string, naming it (YAML users have no compiler)", () => {
    const failures: Failures = [];
    checkInputs({ host: { address: "hv1" }, name: "vm", disks: [{ volume: "os", format: "qcow2" }], qemuAgent: "yes" } as unknown as DomainInputs, failures);
    assert.deepStrictEqual(failures, [{ property: "qemuAgent", reason: 'qemuAgent must be true or false, got "yes"' }]);
  });
});
