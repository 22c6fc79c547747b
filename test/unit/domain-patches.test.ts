// xmlPatches on the XML the provider builds: add, set and remove where the XPath points,
// in order; refused when a patch selects nothing, is not XPath, or changes what pulumi-kvm
// manages; and in check, before anything is made, named by the patch's index.
import * as assert from "assert";
import { checkXmlPatches } from "../../provider/kinds/domain/patches";
import type { DomainInputs } from "../../provider/kinds/domain/types";
import { Failures } from "../../provider/resources/input-checks";
import { UNKNOWN } from "../../provider/resources/unknown";
import { applyPatches, PatchError } from "../../provider/xml/domain-patches";

const xml =
  "<domain type='kvm'><name>vm</name><uuid>u</uuid><metadata/><os><type machine='pc'>hvm</type></os>" +
  "<devices><disk type='file'><source file='/p/os'/></disk><interface type='network'/><rng model='virtio'/></devices></domain>";

const refusal = (patch: object) => {
  try {
    applyPatches(xml, [patch as never]);
  } catch (err) {
    assert.ok(err instanceof PatchError, String(err));
    return `${err.property} ${err.message}`;
  }
  assert.fail("the patch applied");
};

describe("xmlPatches", () => {
  it("adds a fragment as the last child, sets an attribute and an element's text, removes nodes, in order", () => {
    const out = applyPatches(xml, [
      { xpath: "/domain/devices", add: "<watchdog model='i6300esb' action='reset'/><memballoon model='none'/>" },
      { xpath: "/domain/os/type/@machine", set: "q35" },
      { xpath: "/domain/devices/watchdog/@action", set: "poweroff" },
      { xpath: "/domain/devices/rng", remove: true },
    ]);
    assert.match(out, /<interface type="network"\/><watchdog model="i6300esb" action="poweroff"\/><memballoon model="none"\/><\/devices>/);
    assert.match(out, /<type machine="q35">hvm<\/type>/);
    assert.doesNotMatch(out, /rng/);
    assert.strictEqual(applyPatches(xml, []), xml, "no patches: the XML as built");
  });

  it("refuses a patch that selects nothing, a value, or is not XPath, naming its index and field", () => {
    assert.match(refusal({ xpath: "/domain/devices/watchdog", remove: true }), /^xmlPatches\[0\]\.xpath .*"\/domain\/devices\/watchdog" matches nothing/);
    assert.match(refusal({ xpath: "count(//disk)", set: "1" }), /^xmlPatches\[0\]\.xpath .*selects a value \(1\), not nodes/);
    assert.match(refusal({ xpath: "/domain/[", remove: true }), /^xmlPatches\[0\]\.xpath .*is not an XPath expression/);
    assert.match(refusal({ xpath: "/domain/devices", add: "<watchdog" }), /is not well-formed XML/);
  });

  it("refuses a patch that changes the name, UUID, marker, a disk or a NIC, however it gets there", () => {
    assert.match(refusal({ xpath: "/domain/name", set: "other" }), /changes the domain's name, which pulumi-kvm manages/);
    assert.match(refusal({ xpath: "/domain/devices/disk/source/@file", set: "/etc/shadow" }), /changes its disks \(and the cloud-init seed\)/);
    assert.match(refusal({ xpath: "/domain/devices", add: "<disk type='file'><source file='/etc/shadow'/></disk>" }), /changes its disks/);
    assert.match(refusal({ xpath: "/domain/devices", remove: true }), /changes its disks \(and the cloud-init seed\) and its NICs/);
    assert.match(refusal({ xpath: "/domain/devices/interface", add: "<filterref filter='x'/>" }), /changes its NICs/);
    assert.match(refusal({ xpath: "/domain/metadata", add: "<x/>" }), /ownership marker/);
  });

  describe("in check", () => {
    const domain = (xmlPatches: unknown): DomainInputs =>
      ({
        host: { address: "hv1" },
        name: "vm",
        disks: [{ volume: "os", format: "qcow2", device: "disk", bus: "virtio", pool: "default" }],
        xmlPatches,
      }) as DomainInputs;
    const reasons = (xmlPatches: unknown) => {
      const failures: Failures = [];
      checkXmlPatches(domain(xmlPatches), failures);
      return failures.map((f) => f.reason);
    };

    it("passes patches that apply to the XML these inputs build, and one not known yet", () => {
      assert.deepStrictEqual(reasons([{ xpath: "/domain/devices", add: "<watchdog model='i6300esb'/>" }]), []);
      assert.deepStrictEqual(reasons([{ xpath: "/domain/devices/disk", remove: UNKNOWN }]), [], "a field not known in a preview");
      assert.deepStrictEqual(reasons(UNKNOWN), []);
    });

    it("refuses a malformed patch, one that selects nothing and one on a managed disk, before anything is made", () => {
      assert.deepStrictEqual(reasons([{ add: "<x/>" }]), ['xmlPatches[0].xpath: is required: an XPath such as "/domain/devices"']);
      assert.match(reasons([{ xpath: "/domain", add: "<x/>", remove: true }]).join(), /give exactly one of add, set and remove \(got add, remove\)/);
      assert.match(reasons([{ xpath: "/domain/devices/watchdog", remove: true }]).join(), /^xmlPatches\[0\]\.xpath: .*matches nothing/);
      assert.match(reasons([{ xpath: "/domain/devices/disk/driver/@type", set: "raw" }]).join(), /changes its disks/);
      assert.match(reasons("<watchdog/>").join(), /^xmlPatches: .*a list of patches/);
    });
  });
});
