// The provider plugin's side of the engine boundary: which kind a URN names, and secrets
// in both directions (an input that came secret, a property the kind declares secret, a
// host with key material, a failed initialization's record).
import * as assert from "assert";
import { kindOfUrn } from "../../plugin/provider";
import { unwrapSecrets, wrapSecrets } from "../../plugin/secrets";

const SIG = "4dabf18193072939515e22adb298388d";
const secret = (value: unknown) => ({ [SIG]: "1b47061264138c4ac30d75fd1eb44270", value });

describe("plugin boundary", () => {
  it("takes the kind from the URN's type token (also under a parent) and the name after it", () => {
    assert.deepStrictEqual(kindOfUrn("urn:pulumi:dev::lab::kvm:index:Domain::web"), { kind: "Domain", name: "web" });
    assert.deepStrictEqual(kindOfUrn("urn:pulumi:dev::lab::my:app:Fleet$kvm:index:Volume::a::b"), { kind: "Volume", name: "a::b" });
    assert.throws(() => kindOfUrn("urn:pulumi:dev::lab::kvm:index:Checkpoint::x"), /unknown resource type "kvm:index:Checkpoint"/);
  });

  it("unwraps secrets at any depth and names the properties that held one", () => {
    const { props, secret: names } = unwrapSecrets({
      host: { address: "hv1", privateKey: secret("KEY") },
      cloudInit: secret({ userData: "#cloud-config" }),
      name: "web",
    });
    assert.deepStrictEqual(props, { host: { address: "hv1", privateKey: "KEY" }, cloudInit: { userData: "#cloud-config" }, name: "web" });
    assert.deepStrictEqual([...names].sort(), ["cloudInit", "host"]);
  });

  it("returns as secrets what came secret, what the kind declares secret, and a host with key material", () => {
    const outs = wrapSecrets(
      "Domain",
      { name: "web", cloudInit: { userData: "x" }, host: { address: "hv1", passphrase: "p" }, ipAddress: "10.0.0.2", memory: 512 },
      new Set(["memory"]),
    );
    assert.deepStrictEqual(outs, {
      name: "web",
      cloudInit: secret({ userData: "x" }),
      host: secret({ address: "hv1", passphrase: "p" }),
      ipAddress: "10.0.0.2",
      memory: secret(512),
    });
    assert.deepStrictEqual(wrapSecrets("Volume", { host: { address: "hv1", privateKeyPath: "/k" } }, new Set()), {
      host: { address: "hv1", privateKeyPath: "/k" },
    });
  });

  it("returns an Image's source as a secret when its url or checksumUrl carries credentials, and only then", () => {
    for (const source of [
      { url: "https://ops:hunter2@mirror.example/debian.qcow2" },
      { url: "https://mirror.example/debian.qcow2?X-Amz-Signature=abc" },
      { url: "https://mirror.example/debian.qcow2", checksumUrl: "https://mirror.example/SHA512SUMS?token=abc" },
    ]) {
      assert.deepStrictEqual(wrapSecrets("Image", { source, name: "debian" }, new Set()), { source: secret(source), name: "debian" }, JSON.stringify(source));
    }
    const plain = { url: "https://mirror.example/debian.qcow2", checksumUrl: "https://mirror.example/SHA512SUMS" };
    assert.deepStrictEqual(wrapSecrets("Image", { source: plain }, new Set()), { source: plain });
  });
});
