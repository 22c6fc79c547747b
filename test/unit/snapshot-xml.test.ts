// The snapshot XML pulumi-kvm writes, and what it reads back of libvirt's.
import * as assert from "assert";
import { parseSnapshotXml, snapshotXml } from "../../provider/xml/snapshot";
import { runCli } from "../support/cli";

describe("snapshot XML and command line", () => {
  it("asks for the memory only when told, escapes the description, and reads libvirt's identity fields", () => {
    assert.strictEqual(snapshotXml({ name: "a", memory: false }), '<domainsnapshot><name>a</name><memory snapshot="no"/></domainsnapshot>');
    assert.strictEqual(
      snapshotXml({ name: "b", description: "<x> & y", memory: true }),
      '<domainsnapshot><name>b</name><description>&lt;x&gt; &amp; y</description><memory snapshot="internal"/></domainsnapshot>',
    );
    const libvirts = `<domainsnapshot>
  <name>before</name>
  <description>before a risky change</description>
  <state>running</state>
  <creationTime>1796433292</creationTime>
  <memory snapshot='internal'/>
  <disks><disk name='vda' snapshot='internal'/></disks>
  <domain type='qemu'><name>web</name><uuid>5f0c7a4e-8a1b-4c43-9d9e-0123456789ab</uuid></domain>
</domainsnapshot>`;
    assert.deepStrictEqual(parseSnapshotXml(libvirts), {
      name: "before",
      description: "before a risky change",
      state: "running",
      creationTime: 1796433292,
      memory: true,
      domainUuid: "5f0c7a4e-8a1b-4c43-9d9e-0123456789ab",
    });
  });

  it("pulumi-kvm snapshot: --help (exit 0) and usage errors (exit 2) that say what is missing", async () => {
    const help = await runCli(["snapshot", "--help"]);
    assert.deepStrictEqual([help.code, help.stderr], [0, ""]);
    assert.match(help.stdout, /usage: pulumi-kvm snapshot list DOMAIN/);
    for (const [args, said] of [
      [["snapshot"], 'say "list" or "revert"'],
      [["snapshot", "revert", "web", "--host", "hv1"], "name the snapshot to revert to"],
      [["snapshot", "list", "web"], "give either --host or --stack"],
      [["snapshot", "list", "web", "--host", "hv1", "--colour"], "Unknown option '--colour'"],
    ] as const) {
      const r = await runCli([...args]);
      assert.strictEqual(r.code, 2, r.stderr);
      assert.ok(r.stderr.startsWith(`pulumi-kvm snapshot: ${said}`), r.stderr);
    }
  });
});
