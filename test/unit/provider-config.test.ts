// The plugin's provider configuration (plugin/config.ts): stack config arrives as strings,
// an explicit provider's inputs typed; a wrong setting is named as the user sets it.
import * as assert from "assert";
import { changedSettings, hostOfResource, providerHost } from "../../plugin/config";

describe("provider configuration", () => {
  it("reads stack config's strings by each setting's type, in both of the engine's key forms", () => {
    assert.deepStrictEqual(
      providerHost({ "kvm:config:address": "hv1", "kvm:config:port": "2222", "kvm:config:strictHostKeyChecking": "false", version: "0.6.0" }),
      { host: { address: "hv1", port: 2222, strictHostKeyChecking: false }, failures: [] },
    );
    assert.deepStrictEqual(providerHost({ address: "hv1", user: "root", port: 22, agent: "/run/agent.sock" }).host, {
      address: "hv1",
      user: "root",
      port: 22,
      agent: "/run/agent.sock",
    });
    assert.deepStrictEqual(providerHost({ agent: "true", address: "hv1" }).host, { address: "hv1", agent: true });
  });

  it("has no host when nothing is set; names an unknown setting, a missing address and a bad value as kvm:NAME with the fix", () => {
    assert.deepStrictEqual(providerHost({ version: "1.0.0" }), { failures: [] });
    const typo = providerHost({ adress: "hv1" }).failures;
    assert.deepStrictEqual(
      typo.map((f) => f.property),
      ["adress"],
    );
    assert.match(typo[0].reason, /^kvm:adress is not a setting of the kvm provider; its settings are kvm:address, kvm:port, .*kvm:privateKeyPath/);
    assert.match(
      providerHost({ user: "root" }).failures[0].reason,
      /kvm:address is required once any kvm: setting is given: pulumi config set kvm:address HOST/,
    );
    const port = providerHost({ address: "hv1", port: "twenty" }).failures;
    assert.deepStrictEqual(port, [{ property: "port", reason: 'kvm:port: must be a port number 1-65535, got "twenty"' }]);
  });

  it("says which settings changed, as their types read them", () => {
    assert.deepStrictEqual(changedSettings({ address: "hv1", port: "22" }, { address: "hv1", port: 22 }), []);
    assert.deepStrictEqual(changedSettings({ address: "hv1", privateKeyPath: "/a" }, { address: "hv1", privateKeyPath: "/b", version: "2" }), [
      "privateKeyPath",
    ]);
  });

  it("puts a resource on its own host, else on its provider's, else fails naming both ways", () => {
    assert.deepStrictEqual(hostOfResource({ address: "own" }, { address: "prov" }, "Domain"), { host: { address: "own" } });
    assert.deepStrictEqual(hostOfResource(undefined, { address: "prov" }, "Domain"), { host: { address: "prov" } });
    assert.match(
      hostOfResource(undefined, undefined, "Network").failure!,
      /this Network has no host and its provider no configuration: .*pulumi config set kvm:address HOST/,
    );
  });
});
