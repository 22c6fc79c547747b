// What the host's hypervisor offers a domain (libvirt's domain capabilities XML), as far as
// a Domain's inputs ask for it: TPM backends and models, and a firmware with Secure Boot.
import { children, El, node, parseXml } from "./dom";

export interface DomainCapabilities {
  /** "emulator" when libvirt finds swtpm on the host, "passthrough" with a host TPM. */
  tpmBackends: string[];
  tpmModels: string[];
  /** A loader with Secure Boot for this machine. */
  secureBoot: boolean;
}

/** The values of `el`'s <enum name="NAME">. */
const values = (el: El | undefined, name: string) =>
  children(el, "enum")
    .filter((e) => e.getAttribute("name") === name)
    .flatMap((e) => children(e, "value").map((v) => v.textContent ?? ""));

export function parseDomainCapabilities(xml: string): DomainCapabilities {
  const root = parseXml(xml);
  const tpm = node(root, "devices/tpm");
  const supported = tpm?.getAttribute("supported") === "yes";
  return {
    tpmBackends: supported ? values(tpm, "backendModel") : [],
    tpmModels: supported ? values(tpm, "model") : [],
    secureBoot: values(node(root, "os/loader"), "secure").includes("yes"),
  };
}
