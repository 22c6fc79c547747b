// libvirt's own schema check (virt-xml-validate from libvirt-clients, with xmllint from
// libxml2-utils; scripts/lab up installs both). Missing tools fail the test with the fix.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { virsh } from "./virsh";
import { tempDir } from "./tmp";

export function assertValidXml(xml: string, kind: "domain" | "storagevol" | "storagepool" | "network" | "nwfilter"): void {
  const dir = tempDir("xml-schema-");
  const file = path.join(dir, `${kind}.xml`);
  fs.writeFileSync(file, xml);
  try {
    execFileSync("virt-xml-validate", [file, kind], { stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer; stdout?: Buffer };
    if (e.code === "ENOENT") throw new Error("virt-xml-validate is missing: run scripts/lab up (installs libvirt-clients and libxml2-utils)", { cause: err });
    throw new Error(`libvirt's ${kind} schema refuses this XML: ${String(e.stderr ?? "")}${String(e.stdout ?? "")}\n${xml}`, { cause: err });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The persistent definition of a domain on the lab host, as libvirt stores it, against the schema. */
export function assertDomainXmlValid(name: string): void {
  assertValidXml(virsh(["dumpxml", "--inactive", name]), "domain");
}
