// What the SDK stores as a secret before anything reaches the state: an Image source
// whose URL carries credentials (userinfo or a query), and the whole cloudInit whenever any
// of its parts is given (vendor-data and network-config carry credentials as often as
// user-data does).
import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";
import { Domain } from "../../sdk/domain";
import { Image } from "../../sdk/image";

describe("the SDK's secrets", () => {
  before(() =>
    pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
        call: (args) => args.inputs,
      },
      "project",
      "stack",
      false,
    ),
  );
  const host = { address: "hv1", user: "root" };
  const isSecret = (resource: unknown, property: string) => pulumi.isSecret((resource as Record<string, pulumi.Output<unknown>>)[property]);

  it("make an Image's source a secret when its URL or checksum URL has userinfo or a query", async () => {
    const checksumUrl = "https://mirror.example/SHA512SUMS?token=abc";
    assert.strictEqual(await isSecret(new Image("sums", { host, source: { url: "https://mirror.example/a.qcow2", checksumUrl } }), "source"), true);
    assert.strictEqual(await isSecret(new Image("signed", { host, source: { url: "https://mirror.example/a.qcow2?sig=abc" } }), "source"), true);
    assert.strictEqual(await isSecret(new Image("userinfo", { host, source: { url: "https://u:p@mirror.example/a.qcow2" } }), "source"), true);
    assert.strictEqual(await isSecret(new Image("plain", { host, source: { url: "https://mirror.example/a.qcow2" } }), "source"), false);
  });

  it("make cloudInit a secret when any part is given, and only then", async () => {
    const disks = [{ volume: "disk" }];
    for (const part of ["userData", "vendorData", "metaData", "networkConfig", "hostname"]) {
      assert.strictEqual(
        await isSecret(new Domain(`vm-${part}`, { host, disks, cloudInit: { [part]: part === "hostname" ? "web-1" : "x: 1\n" } }), "cloudInit"),
        true,
        part,
      );
    }
    assert.strictEqual(await isSecret(new Domain("vm-empty", { host, disks, cloudInit: {} }), "cloudInit"), false, "an empty cloudInit holds nothing secret");
  });
});
