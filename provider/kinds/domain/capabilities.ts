// check, in preview: what the inputs ask of the host's hypervisor is there (libvirt's domain
// capabilities): swtpm for an emulated TPM, a firmware with Secure Boot for secureBoot.
import { askInCheck } from "../../resources/host-check";
import { Failures, reporter } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import type { ResourceContext } from "../../resources/context";
import { parseDomainCapabilities } from "../../xml/domain-capabilities";
import type { DomainInputs } from "./types";

export async function checkHostOffers(ctx: ResourceContext, failures: Failures, d: DomainInputs): Promise<void> {
  const tpm = d.tpm && !isUnknown(d.tpm) ? d.tpm : undefined;
  if ((!tpm && d.secureBoot !== true) || failures.length || isUnknown(d.type) || isUnknown(d.machine)) return;
  const xml = await askInCheck(ctx.pool, d.host, (lv) => lv.domainCapabilities(d.type ?? "kvm", d.machine));
  if (xml === undefined) return;
  const host = hostLabel(d.host);
  const bad = reporter(failures);
  const offers = parseDomainCapabilities(xml);
  if (tpm && !offers.tpmBackends.includes("emulator"))
    bad(
      "tpm",
      `${host} cannot emulate a TPM: libvirt finds no swtpm there. Install it on the host (Debian: apt install swtpm swtpm-tools); libvirtd sees it without a restart`,
    );
  else if (tpm?.model && !isUnknown(tpm.model) && !offers.tpmModels.includes(tpm.model))
    bad("tpm.model", `${host} offers no TPM model "${tpm.model}" (it offers ${offers.tpmModels.join(", ") || "none"})`);
  if (d.secureBoot === true && !offers.secureBoot)
    bad(
      "secureBoot",
      `${host} has no UEFI firmware with Secure Boot for machine ${d.machine ?? "q35"}: install OVMF with Secure Boot and its firmware descriptors (Debian: ovmf)`,
    );
}
