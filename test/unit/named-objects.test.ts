// A name where a declaration allows a resource or its name (a NIC's filter) makes no Pulumi
// dependency: a create finds each such object on the host first, derived from the types.
import * as assert from "assert";
import type { Libvirt } from "../../provider/libvirt/api";
import { DECLARATIONS } from "../../provider/kinds";
import { requireNamedObjects } from "../../provider/resources/named-objects";
import { ErrorCode } from "../../provider/rpc/error-codes";
import { LibvirtError } from "../../provider/rpc/errors";

/** A host with these network filters; every lookup is counted. */
function hostWith(filters: string[]) {
  const asked: string[] = [];
  const lv = {
    lookupNetworkFilter: async (name: string) => {
      asked.push(name);
      if (filters.includes(name)) return { name, uuid: Buffer.alloc(16) };
      throw new LibvirtError({ code: ErrorCode.VIR_ERR_NO_NWFILTER, domain: 0, message: `no filter ${name}`, level: 2 } as never, "virNWFilterLookupByName");
    },
  } as unknown as Libvirt;
  return { lv, asked };
}

const nics = (...filters: (string | undefined)[]) => ({ networkInterfaces: filters.map((filter) => ({ network: "default", filter })) });

describe("objects the inputs name", () => {
  it("finds each NIC's filter by name on the host, and passes when all are there", async () => {
    const { lv, asked } = hostWith(["web", "db"]);
    await requireNamedObjects(lv, DECLARATIONS.Domain, nics("web", undefined, "db"), "h");
    assert.deepStrictEqual(asked, ["web", "db"]);
  });

  it("fails naming the NIC's property, the filter and the fix when one is missing", async () => {
    const { lv } = hostWith(["web"]);
    await assert.rejects(requireNamedObjects(lv, DECLARATIONS.Domain, nics("web", "gone"), "h"), (e: Error & { property?: string }) => {
      assert.strictEqual(e.property, "networkInterfaces[1].filter");
      assert.match(
        e.message,
        /networkInterfaces\[1\]\.filter: there is no network filter "gone".*Pass the NetworkFilter resource itself.*virsh nwfilter-define/s,
      );
      return true;
    });
  });

  it("asks nothing for an unknown value (a preview's) or a kind whose inputs name no such object", async () => {
    const { lv, asked } = hostWith([]);
    await requireNamedObjects(lv, DECLARATIONS.Domain, { networkInterfaces: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" }, "h");
    await requireNamedObjects(lv, DECLARATIONS.Volume, { name: "v", pool: "default" }, "h");
    assert.deepStrictEqual(asked, []);
  });
});
