// What the SDK stores as a secret before anything reaches the state: the whole cloudInit
// whenever any of its parts is given (vendor-data and network-config carry credentials as
// often as user-data does).
import * as assert from "assert";

describe("the SDK's secrets", () => {
  it("make cloudInit a secret when any part is given, and only then", async () => {
    const pulumi = await import("@pulumi/pulumi");
    pulumi.runtime.setMocks({
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: (args) => args.inputs,
    }, "project", "stack", false);
    const { Domain } = await import("../../sdk/domain");
    const host = { address: "hv1", user: "root" };
    const disks = [{ volume: "disk" }];
    const secretOf = (d: InstanceType<typeof Domain>) => pulumi.isSecret((d as unknown as { cloudInit: unknown }).cloudInit as never);
    for (const part of ["userData", "vendorData", "metaData", "networkConfig", "hostname"]) {
      assert.strictEqual(await secretOf(new Domain(`vm-${part}`, { host, disks, cloudInit: { [part]: part === "hostname" ? "web-1" : "x: 1\n" } })), true, part);
    }
    assert.strictEqual(await secretOf(new Domain("vm-empty", { host, disks, cloudInit: {} })), false, "an empty cloudInit holds nothing secret");
  });
});
