// secureBoot and tpm as check reads them (defaults, the machine Secure Boot needs, what is
// refused and why), and what the host offers as libvirt's domain capabilities say it.
import * as assert from "assert";
import { checkInputs, DomainInputs } from "../../provider/kinds/domain/inputs";
import { Failures } from "../../provider/resources/input-checks";
import { parseDomainCapabilities } from "../../provider/xml/domain-capabilities";
import { parseDomainXml, domainXml } from "../../provider/xml/domain";
import { specOf } from "../../provider/kinds/domain/spec";
import { checkHostOffers } from "../../provider/kinds/domain/capabilities";
import type { ResourceContext } from "../../provider/resources/context";

const base: DomainInputs = { host: { address: "hv1" }, name: "vm", disks: [{ volume: "os", format: "qcow2" }] };
const checked = (extra: Partial<DomainInputs>) => {
  const failures: Failures = [];
  const inputs = checkInputs({ ...base, ...extra }, failures);
  return { inputs, reasons: failures.map((f) => f.reason) };
};

describe("secureBoot and tpm in check", () => {
  it("fills in q35 for Secure Boot and the TPM's defaults (2.0 on tpm-crb, 1.2 on tpm-tis)", () => {
    const { inputs, reasons } = checked({ firmware: "uefi", secureBoot: true, tpm: {} });
    assert.deepStrictEqual(reasons, []);
    assert.strictEqual(inputs.machine, "q35");
    assert.deepStrictEqual(inputs.tpm, { version: "2.0", model: "tpm-crb" });
    assert.deepStrictEqual(checked({ tpm: { version: "1.2" } }).inputs.tpm, { version: "1.2", model: "tpm-tis" });
    assert.strictEqual(checked({}).inputs.machine, undefined, "no machine without secureBoot");
    assert.strictEqual(checked({ firmware: "uefi", secureBoot: true, machine: "pc-q35-7.2" }).inputs.machine, "pc-q35-7.2");
  });

  it("refuses Secure Boot without UEFI or on another machine, and a TPM 1.2 on tpm-crb, naming the property and the fix", () => {
    assert.deepStrictEqual(checked({ secureBoot: true }).reasons, ['secureBoot: needs firmware: "uefi" (Secure Boot is a UEFI feature), got firmware "bios"']);
    assert.match(
      checked({ firmware: "uefi", secureBoot: true, machine: "pc" }).reasons.join(),
      /^machine: is "pc", but secureBoot needs a q35 machine .*leave machine out or say "q35"$/,
    );
    assert.match(checked({ tpm: { version: "1.2", model: "tpm-crb" } }).reasons.join(), /^tpm\.model: tpm-crb is a TPM 2\.0 interface: use "tpm-tis"/);
    assert.match(checked({ tpm: { version: "3" as never } }).reasons.join(), /^tpm\.version: must be "2\.0" or "1\.2", got "3"/);
    assert.match(checked({ secureBoot: "yes" as never }).reasons.join(), /^secureBoot must be true or false, got "yes"/);
  });

  it("writes them into the domain XML and reads them back", () => {
    const { inputs } = checked({ firmware: "uefi", secureBoot: true, tpm: {} });
    const xml = domainXml(specOf(inputs, [{ path: "/p/os", format: "qcow2", device: "disk", bus: "virtio" }], undefined, "vm"));
    const parsed = parseDomainXml(xml);
    assert.strictEqual(parsed.secureBoot, true);
    assert.deepStrictEqual(parsed.tpm, { version: "2.0", model: "tpm-crb" });
    assert.match(xml, /<smm state="on"\/>/);
    assert.match(xml, /<feature enabled="yes" name="enrolled-keys"\/>/);
    // libvirt refuses root ports unless the root complex is index 0
    assert.match(
      xml,
      /<controller type="pci" index="0" model="pcie-root"\/>(<controller type="pci" model="pcie-root-port"\/>){11}<serial/,
      "one disk, no NIC: 1 + 6 + 4 spare",
    );
    const plain = parseDomainXml(domainXml(specOf(checked({ firmware: "uefi" }).inputs, [], undefined, "vm")));
    assert.strictEqual(plain.secureBoot, false);
    assert.strictEqual(plain.tpm, undefined);
  });
});

describe("libvirt's domain capabilities", () => {
  const caps = (backends: string[]) => `<domainCapabilities><os supported="yes"><loader supported="yes">
    <enum name="secure"><value>yes</value><value>no</value></enum></loader></os>
    <devices><tpm supported="yes"><enum name="model"><value>tpm-tis</value><value>tpm-crb</value></enum>
    <enum name="backendModel">${backends.map((b) => `<value>${b}</value>`).join("")}</enum></tpm></devices></domainCapabilities>`;

  it("reads the TPM backends and models and whether a loader has Secure Boot", () => {
    assert.deepStrictEqual(parseDomainCapabilities(caps(["passthrough", "emulator"])), {
      tpmBackends: ["passthrough", "emulator"],
      tpmModels: ["tpm-tis", "tpm-crb"],
      secureBoot: true,
    });
    assert.deepStrictEqual(parseDomainCapabilities("<domainCapabilities><os supported='yes'/></domainCapabilities>"), {
      tpmBackends: [],
      tpmModels: [],
      secureBoot: false,
    });
  });
});

describe("check asks the host for what secureBoot and tpm need", () => {
  const caps = (backends: string[], secure: string[]) =>
    `<domainCapabilities><os supported="yes"><loader supported="yes"><enum name="secure">${secure.map((v) => `<value>${v}</value>`).join("")}</enum></loader></os>` +
    `<devices><tpm supported="yes"><enum name="model"><value>tpm-tis</value><value>tpm-crb</value></enum><enum name="backendModel">${backends.map((b) => `<value>${b}</value>`).join("")}</enum></tpm></devices></domainCapabilities>`;
  /** A host whose libvirt answers the domain capabilities with `xml`, recording what was asked. */
  const hostWith = (xml: string) => {
    const asked: unknown[][] = [];
    const ctx = {
      pool: {
        probe: async (_h: unknown, fn: (lv: unknown) => Promise<unknown>) =>
          fn({
            domainCapabilities: async (...args: unknown[]) => {
              asked.push(args);
              return xml;
            },
          }),
        describe: () => ({ label: "root@hv1", identity: "hv1" }),
      },
    } as unknown as ResourceContext;
    return { ctx, asked };
  };
  const offers = async (xml: string, extra: Partial<DomainInputs>) => {
    const { ctx, asked } = hostWith(xml);
    const failures: Failures = [];
    await checkHostOffers(ctx, failures, { ...checked(extra).inputs, host: { address: "hv1" } });
    return { reasons: failures.map((f) => f.reason), asked };
  };

  it("says when the host has no swtpm, or no firmware with Secure Boot, naming the host and the fix", async () => {
    const noSwtpm = await offers(caps(["passthrough"], ["no"]), { tpm: {}, type: "qemu" });
    assert.deepStrictEqual(noSwtpm.asked, [["qemu", undefined]]);
    assert.deepStrictEqual(noSwtpm.reasons, [
      "tpm: root@hv1 cannot emulate a TPM: libvirt finds no swtpm there. Install it on the host (Debian: apt install swtpm swtpm-tools); libvirtd sees it without a restart",
    ]);
    const noSecure = await offers(caps(["emulator"], ["no"]), { firmware: "uefi", secureBoot: true });
    assert.deepStrictEqual(noSecure.asked, [["kvm", "q35"]]);
    assert.match(noSecure.reasons.join(), /^secureBoot: root@hv1 has no UEFI firmware with Secure Boot for machine q35/);
  });

  it("passes a host that offers both, and asks nothing of a domain that needs neither", async () => {
    assert.deepStrictEqual((await offers(caps(["emulator"], ["yes", "no"]), { firmware: "uefi", secureBoot: true, tpm: {} })).reasons, []);
    assert.deepStrictEqual((await offers(caps([], []), {})).asked, []);
  });
});
