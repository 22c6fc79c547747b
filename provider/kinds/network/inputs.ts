// The Network resource's inputs: their shape, and `check`'s validation with errors that
// name the property (addresses as gateway CIDRs, a DHCP range and reservations inside
// the first IPv4 subnet, a host bridge for bridge mode).
import { checkNamedInputs } from "../../resources/named-check";
import { networkDeclaration, NetworkInputs } from "./declaration";

export type { NetworkInputs, NetworkOutputs } from "./declaration";
import * as net from "net";
import { NetworkMode, NetworkSpec } from "../../xml/network";
import { checkName, Failures, IFACE_RE, MAC_RE, reporter } from "../../resources/input-checks";
import { isUnknown } from "../../resources/unknown";

export const NETWORK_MODES: NetworkMode[] = ["nat", "isolated", "route", "bridge"];

type Cidr = NetworkSpec["addresses"][number];

export function parseCidr(v: string): Cidr | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(v);
  if (!m) return undefined;
  const family = net.isIPv4(m[1]) ? "ipv4" : net.isIPv6(m[1]) ? "ipv6" : undefined;
  const prefix = Number(m[2]);
  if (!family || prefix > (family === "ipv4" ? 32 : 128) || prefix < 1) return undefined;
  return { address: m[1], prefix, family };
}

const v4 = (ip: string) => ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);

/** Whether an IPv4 address is inside the subnet of a gateway CIDR. */
function inSubnet(ip: string, gw: Cidr): boolean {
  const size = 2 ** (32 - gw.prefix);
  return Math.floor(v4(ip) / size) === Math.floor(v4(gw.address) / size);
}

/** The network's definition as the XML builder takes it. */
export function specOf(n: NetworkInputs): NetworkSpec {
  return {
    name: n.name,
    mode: n.mode,
    bridge: n.bridge,
    domain: n.domain,
    addresses: (n.addresses ?? []).map((a) => parseCidr(a)!),
    dhcp: n.dhcp && { start: n.dhcp.start, end: n.dhcp.end, hosts: n.dhcp.hosts ?? [] },
  };
}

export function checkNetworkInputs(failures: Failures, news: NetworkInputs): NetworkInputs {
  const inputs = checkNamedInputs(failures, networkDeclaration, news);
  const bad = reporter(failures);
  if (!isUnknown(news.mode) && !NETWORK_MODES.includes(news.mode))
    bad("mode", `must be one of ${NETWORK_MODES.map((m) => `"${m}"`).join(", ")}, got ${JSON.stringify(news.mode)}`);
  if (news.bridge !== undefined && !isUnknown(news.bridge) && (typeof news.bridge !== "string" || !IFACE_RE.test(news.bridge))) {
    bad("bridge", `must be a Linux interface name (at most 15 letters, digits, "_", ".", "-"), got ${JSON.stringify(news.bridge)}`);
  }
  if (
    news.domain !== undefined &&
    !isUnknown(news.domain) &&
    !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(String(news.domain))
  ) {
    bad("domain", `must be a DNS domain such as "lab.internal", got ${JSON.stringify(news.domain)}`);
  }
  const addresses = news.addresses ?? [];
  if (!isUnknown(addresses) && !Array.isArray(addresses)) bad("addresses", 'must be a list of gateway CIDRs such as ["192.168.171.1/24"]');
  const cidrs: Cidr[] = [];
  if (Array.isArray(addresses)) {
    addresses.forEach((a, i) => {
      if (isUnknown(a)) return;
      const c = typeof a === "string" ? parseCidr(a) : undefined;
      if (!c) bad(`addresses[${i}]`, `must be the gateway's address with a prefix, such as "192.168.171.1/24", got ${JSON.stringify(a)}`);
      else cidrs.push(c);
    });
  }
  if (news.mode === "bridge") {
    if (!news.bridge) bad("bridge", 'is required in bridge mode: the name of an existing bridge on the host, e.g. "br0"');
    if (addresses.length) bad("addresses", "cannot be given in bridge mode: the host's bridge has its own addressing");
    if (news.dhcp) bad("dhcp", "cannot be given in bridge mode: DHCP comes from the bridged LAN");
    if (news.domain) bad("domain", "cannot be given in bridge mode: libvirt serves no DNS there");
  } else if ((news.mode === "nat" || news.mode === "route") && Array.isArray(addresses) && addresses.length === 0) {
    bad("addresses", `is required in ${news.mode} mode: the gateway's address on the network, such as ["192.168.171.1/24"]`);
  }
  const dhcp = news.dhcp;
  if (dhcp !== undefined && !isUnknown(dhcp) && news.mode !== "bridge") {
    const gw = cidrs.find((c) => c.family === "ipv4");
    // addresses not known yet (preview) may hold it
    if (!gw && !isUnknown(addresses)) bad("dhcp", "needs an IPv4 address in addresses: DHCP is served on its subnet");
    for (const k of ["start", "end"] as const) {
      const ip = dhcp[k];
      if (isUnknown(ip)) continue;
      if (typeof ip !== "string" || !net.isIPv4(ip)) bad(`dhcp.${k}`, `must be an IPv4 address, got ${JSON.stringify(ip)}`);
      else if (gw && !inSubnet(ip, gw)) bad(`dhcp.${k}`, `${ip} is outside ${gw.address}/${gw.prefix}`);
    }
    if (net.isIPv4(String(dhcp.start)) && net.isIPv4(String(dhcp.end)) && v4(dhcp.start) > v4(dhcp.end))
      bad("dhcp.end", `${dhcp.end} comes before dhcp.start ${dhcp.start}`);
    const hosts = dhcp.hosts ?? [];
    const seen = new Map<string, number>();
    if (Array.isArray(hosts)) {
      hosts.forEach((h, i) => {
        if (isUnknown(h)) return;
        const at = `dhcp.hosts[${i}]`;
        if (!h || typeof h.mac !== "string" || !MAC_RE.test(h.mac))
          bad(`${at}.mac`, `must be a MAC address like 52:54:00:12:34:56, got ${JSON.stringify(h?.mac)}`);
        if (!h || typeof h.ip !== "string" || !net.isIPv4(h.ip)) bad(`${at}.ip`, `must be an IPv4 address, got ${JSON.stringify(h?.ip)}`);
        else if (gw && !inSubnet(h.ip, gw)) bad(`${at}.ip`, `${h.ip} is outside ${gw.address}/${gw.prefix}`);
        if (h?.name !== undefined) checkName(failures, `${at}.name`, h.name);
        for (const key of [h?.mac?.toLowerCase(), h?.ip]) {
          if (key === undefined) continue;
          if (seen.has(key)) bad(at, `reserves ${key} again (dhcp.hosts[${seen.get(key)}] has it)`);
          else seen.set(key, i);
        }
      });
      inputs.dhcp = { ...dhcp, hosts: hosts.map((h) => (isUnknown(h) ? h : { ...h, mac: String(h.mac).toLowerCase() })) };
    } else bad("dhcp.hosts", "must be a list of { mac, ip, name? }");
  }
  return inputs;
}
