// The domain XML a move hands the new host: the old host's own (devices, addresses and all, as
// libvirt's migration needs them), with each disk's file and its backing chain's files named
// as the new host has them.
import { DOMParser, XMLSerializer } from "@xmldom/xmldom";
import * as xpath from "xpath";

/** `xml` with every disk source file (backing stores' too) that `paths` maps replaced by its new path. */
export function withDiskPaths(xml: string, paths: ReadonlyMap<string, string>): string {
  const doc = new DOMParser().parseFromString(xml, "text/xml") as unknown as Document;
  for (const source of xpath.select("/domain/devices/disk//source[@file]", doc) as Element[]) {
    const to = paths.get(source.getAttribute("file")!);
    if (to !== undefined) source.setAttribute("file", to);
  }
  return new XMLSerializer().serializeToString(doc as never);
}

/** Each NIC of the live domain XML `xml` as a device XML with its link `state` (virDomainUpdateDeviceFlags finds it by its MAC). */
export function interfacesWithLink(xml: string, state: "up" | "down"): string[] {
  const doc = new DOMParser().parseFromString(xml, "text/xml") as unknown as Document;
  return (xpath.select("/domain/devices/interface", doc) as Element[]).map((nic) => {
    const copy = nic.cloneNode(true) as Element;
    for (const link of Array.from(copy.getElementsByTagName("link"))) copy.removeChild(link);
    const link = doc.createElement("link");
    link.setAttribute("state", state);
    copy.appendChild(link);
    return new XMLSerializer().serializeToString(copy as never);
  });
}
