// The NoCloud seed: meta-data (instance-id, local-hostname),
// user-data, vendor-data and network-config on an ISO labelled "cidata".
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

/** `instanceId`: the caller's, new for each seed made (never from the content: a hash of user-data lets its secrets be guessed offline). */
export function buildSeed(c: CloudInit, fallbackHostname: string, instanceId: string): Seed {
  const userData = c.userData ?? "#cloud-config\n{}\n";
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
