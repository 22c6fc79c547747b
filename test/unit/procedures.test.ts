// Every row of the call table and of the handshake against libvirt's own procedure
// numbers (test/fixtures/remote-procedures.txt, read from remote_protocol.x): the
// number must be the one of the REMOTE_PROC_ constant the public API name maps to.
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { calls } from "../../provider/libvirt/calls";
import { handshakeProcedures } from "../../provider/rpc/handshake";

const fixture = new Map(
  fs
    .readFileSync(path.join(__dirname, "..", "..", "..", "test", "fixtures", "remote-procedures.txt"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("REMOTE_PROC_"))
    .map((l) => {
      const [name, n] = l.trim().split(/\s+/);
      return [name, Number(n)] as const;
    }),
);

/** libvirt's naming rule: virStorageVolCreateXML → REMOTE_PROC_STORAGE_VOL_CREATE_XML. */
function constantOf(api: string): string {
  // the auth procedures have no public API of their own
  const special: Record<string, string> = { virConnectAuthList: "AUTH_LIST", virConnectAuthPolkit: "AUTH_POLKIT" };
  const words =
    special[api] ??
    api
      .replace(/^virNWFilter/, "Nwfilter")
      .replace(/^vir/, "")
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
      .toUpperCase();
  return `REMOTE_PROC_${words}`;
}

describe("procedure table", () => {
  const rows = [...Object.entries(calls).map(([name, row]) => [name, row.proc] as const), ...Object.entries(handshakeProcedures)];

  it("maps API names to libvirt's constants by libvirt's naming rule", () => {
    assert.strictEqual(constantOf("virStorageVolCreateXML"), "REMOTE_PROC_STORAGE_VOL_CREATE_XML");
    assert.strictEqual(constantOf("virNetworkGetDHCPLeases"), "REMOTE_PROC_NETWORK_GET_DHCP_LEASES");
    assert.strictEqual(constantOf("virDomainLookupByUUID"), "REMOTE_PROC_DOMAIN_LOOKUP_BY_UUID");
    assert.strictEqual(constantOf("virConnectGetLibVersion"), "REMOTE_PROC_CONNECT_GET_LIB_VERSION");
  });

  for (const [name, proc] of rows) {
    it(`${name}: ${proc.api} is procedure ${proc.proc} in remote_protocol.x`, () => {
      const constant = constantOf(proc.api);
      assert.ok(fixture.has(constant), `${constant} is not in the fixture`);
      assert.strictEqual(proc.proc, fixture.get(constant), `${constant}`);
    });
  }

  it("has one row per procedure: no number twice", () => {
    const numbers = rows.map(([, p]) => p.proc);
    assert.strictEqual(new Set(numbers).size, numbers.length);
  });
});
