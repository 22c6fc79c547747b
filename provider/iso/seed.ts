// The NoCloud seed: meta-data (instance-id from the content hash, local-hostname),
// user-data, vendor-data and network-config on an ISO labelled "cidata".
import * as crypto from "crypto";
import { buildIso, IsoFile } from "./iso9660";

export interface CloudInit {
  userData?: string;
  vendorData?: string;
  metaData?: string;
  networkConfig?: string;
  hostname?: string;
}

export interface Seed {
  iso: Buffer;
  instanceId: string;
}

function yamlString(s: string): string {
  return JSON.stringify(s); // JSON strings are valid YAML scalars
}

export function buildSeed(c: CloudInit, fallbackHostname: string): Seed {
  const userData = c.userData ?? "#cloud-config\n{}\n";
  // vendor-data joins the hash only when given, so seeds made before it existed keep their instance-id
  const parts = [userData, c.metaData ?? "", c.networkConfig ?? "", c.hostname ?? fallbackHostname, ...(c.vendorData !== undefined ? [c.vendorData] : [])];
  const hash = crypto.createHash("sha256").update(JSON.stringify(parts)).digest("hex");
  const instanceId = `i-${hash.slice(0, 16)}`;
  const lines = [`instance-id: ${instanceId}`, `local-hostname: ${yamlString(c.hostname ?? fallbackHostname)}`];
  const metaData = lines.join("\n") + "\n" + (c.metaData ? c.metaData.replace(/^\s*(instance-id|local-hostname)\s*:.*$/gm, "").trim() + "\n" : "");
  const files: IsoFile[] = [
    { name: "meta-data", data: Buffer.from(metaData) },
    { name: "user-data", data: Buffer.from(userData) },
  ];
  if (c.vendorData !== undefined) files.push({ name: "vendor-data", data: Buffer.from(c.vendorData) });
  if (c.networkConfig) files.push({ name: "network-config", data: Buffer.from(c.networkConfig) });
  return { iso: buildIso(files, { volumeId: "cidata" }), instanceId };
}
