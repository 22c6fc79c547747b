// Virtual network XML: built from typed inputs, parsed back for read/refresh; and the
// <host> element of a DHCP reservation, which virNetworkUpdate adds and deletes alone.
import { create } from "xmlbuilder2";
import { XMLBuilder } from "xmlbuilder2/lib/interfaces";
import { at, children, node, parseXml } from "./dom";

export type NetworkMode = "nat" | "isolated" | "route" | "bridge";

export interface DhcpHost {
  mac: string;
  ip: string;
  name?: string;
}

export interface NetworkSpec {
  name: string;
  /** Chosen by the provider before the define, so the object's identity is known first. */
  uuid?: string;
  mode: NetworkMode;
  /** The bridge device: made by libvirt (nat/isolated/route, optional) or the host's own (bridge mode). */
  bridge?: string;
  /** Gateway addresses with prefix, e.g. "192.168.171.1/24" (not in bridge mode). */
  addresses: { address: string; prefix: number; family: "ipv4" | "ipv6" }[];
  dhcp?: { start: string; end: string; hosts: DhcpHost[] };
  domain?: string;
}

function dhcpHost(parent: XMLBuilder, h: DhcpHost): void {
  parent.ele("host", { mac: h.mac, ...(h.name ? { name: h.name } : {}), ip: h.ip });
}

/** The <host> element of one reservation, as virNetworkUpdate takes it. */
export function dhcpHostXml(h: DhcpHost): string {
  const doc = create();
  dhcpHost(doc, h);
  return doc.end({ headless: true });
}

export function networkXml(spec: NetworkSpec): string {
  const net = create().ele("network");
  net.ele("name").txt(spec.name);
  if (spec.uuid) net.ele("uuid").txt(spec.uuid);
  // isolated: no <forward> at all
  if (spec.mode !== "isolated") net.ele("forward", { mode: spec.mode });
  // bridge mode joins the host's bridge; otherwise libvirt makes one (named, or virbrN)
  const named = spec.bridge ? { name: spec.bridge } : {};
  net.ele("bridge", spec.mode === "bridge" ? named : { ...named, stp: "on", delay: "0" });
  if (spec.domain) net.ele("domain", { name: spec.domain });
  spec.addresses.forEach((a, i) => {
    const ip = net.ele("ip", { ...(a.family === "ipv6" ? { family: "ipv6" } : {}), address: a.address, prefix: String(a.prefix) });
    // DHCP is served on the first address of its family
    if (i === spec.addresses.findIndex((x) => x.family === "ipv4") && spec.dhcp) {
      const dhcp = ip.ele("dhcp");
      dhcp.ele("range", { start: spec.dhcp.start, end: spec.dhcp.end });
      for (const h of spec.dhcp.hosts) dhcpHost(dhcp, h);
    }
  });
  return net.end({ headless: true });
}

export interface NetworkDescription {
  name: string;
  uuid: string;
  mode: NetworkMode;
  bridge?: string;
  domain?: string;
  addresses: string[];
  dhcp?: { start: string; end: string; hosts: DhcpHost[] };
}

export function parseNetworkXml(xml: string): NetworkDescription {
  const root = parseXml(xml);
  const ips = children(root, "ip");
  const withDhcp = ips.find((ip) => node(ip, "dhcp"));
  const dhcp = withDhcp && node(withDhcp, "dhcp");
  const range = dhcp && node(dhcp, "range");
  return {
    name: at(root, "name") ?? "",
    uuid: at(root, "uuid") ?? "",
    mode: (at(root, "forward@mode") as NetworkMode | undefined) ?? "isolated",
    bridge: at(root, "bridge@name"),
    domain: at(root, "domain@name"),
    addresses: ips.map((ip) => `${ip.getAttribute("address")}/${ip.getAttribute("prefix") ?? netmaskPrefix(ip.getAttribute("netmask"))}`),
    dhcp: range && {
      start: range.getAttribute("start") ?? "",
      end: range.getAttribute("end") ?? "",
      hosts: children(dhcp, "host").map((h) => ({
        mac: (h.getAttribute("mac") ?? "").toLowerCase(),
        ip: h.getAttribute("ip") ?? "",
        ...(h.getAttribute("name") ? { name: h.getAttribute("name")! } : {}),
      })),
    },
  };
}

function netmaskPrefix(mask: string | null): number {
  if (!mask) return 24;
  return mask.split(".").reduce((n, octet) => n + Number(octet).toString(2).replace(/0/g, "").length, 0);
}
