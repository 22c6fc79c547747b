// `pulumi import` of a pool, network or filter by its UUID (importByUuid): an ID that is no
// UUID fails naming the listing before the host is dialled; a UUID the host lacks fails as
// not found; one it has is handed to the kind.
import * as assert from "assert";
import type { HostAccess } from "../../provider/pool/host-pool";
import { importByUuid } from "../../provider/resources/import";
import type { ImportLookup } from "../../provider/resources/object-kind";

const UUID = "0f4d2c9e-8b1a-4c53-9a77-2f0e6d1b3a55";

describe("import by UUID", () => {
  let dialled = 0;
  const pool = { run: async (_host: unknown, fn: (lv: unknown) => Promise<unknown>) => (dialled++, fn({})) } as unknown as HostAccess;
  const lookup: ImportLookup<string> = {
    kind: "Network",
    what: "network",
    listing: "virsh net-list --all --uuid",
    lookup: async (_lv, uuid) => (uuid.toString("hex") === UUID.replaceAll("-", "") ? "lan" : undefined),
  };
  const importNetwork = importByUuid(pool, lookup, async (_lv, found, _host, label) => `${found} on ${label}`);
  const host = { address: "hv1" };

  it("refuses an ID that is no UUID, naming the listing, without dialling the host", async () => {
    dialled = 0;
    await assert.rejects(importNetwork("lan", host), /the ID to import a Network by is its UUID, not "lan".*virsh net-list --all --uuid/s);
    assert.strictEqual(dialled, 0);
  });

  it("fails a UUID the host lacks as not found, and hands the one it has to the kind", async () => {
    await assert.rejects(
      importNetwork("11111111-2222-3333-4444-555555555555", host),
      /there is no network with UUID 11111111-2222-3333-4444-555555555555 on this host/,
    );
    assert.match(await importNetwork(UUID, host), /^lan on .*hv1/);
  });
});
