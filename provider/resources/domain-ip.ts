// Waiting for a domain's IP address: polls interface addresses (DHCP lease, guest
// agent, or both) with backoff until the timeout, skipping loopback and link-local.
import { AddressSource, DomainInterface, DomainRef, Libvirt } from "../libvirt/api";
import { LibvirtError } from "../rpc/errors";

export type IpSource = "lease" | "agent" | "any";
export type IpFamily = "ipv4" | "ipv6" | "any";

export interface WaitForIp {
  timeoutMs: number;
  source: IpSource;
  family: IpFamily;
}

export interface InterfaceAddresses {
  mac: string;
  addresses: string[];
}

function usable(addr: string, type: number, family: IpFamily): boolean {
  const isV6 = type === 1;
  if (family === "ipv4" && isV6) return false;
  if (family === "ipv6" && !isV6) return false;
  if (isV6) return !/^(::1$|fe[89ab][0-9a-f]:)/i.test(addr);
  return !addr.startsWith("127.") && !addr.startsWith("169.254.");
}

/** Current addresses per MAC from the wanted sources (a missing agent is no error). */
export async function interfaceAddresses(lv: Libvirt, dom: DomainRef, source: IpSource, family: IpFamily): Promise<InterfaceAddresses[]> {
  const sources = source === "lease" ? [AddressSource.LEASE] : source === "agent" ? [AddressSource.AGENT] : [AddressSource.LEASE, AddressSource.AGENT];
  const byMac = new Map<string, Set<string>>();
  for (const s of sources) {
    let ifaces: DomainInterface[];
    try {
      ifaces = await lv.interfaceAddresses(dom, s);
    } catch (err) {
      // the agent is optional with "any", and not answering yet while the guest boots
      const agentDown = s === AddressSource.AGENT && err instanceof LibvirtError && (source === "any" || err.codeName === "VIR_ERR_AGENT_UNRESPONSIVE");
      if (agentDown) continue;
      throw err;
    }
    for (const i of ifaces) {
      const mac = (i.hwaddr ?? "").toLowerCase();
      const set = byMac.get(mac) ?? new Set<string>();
      for (const a of i.addrs) if (usable(a.addr, a.type, family)) set.add(a.addr);
      byMac.set(mac, set);
    }
  }
  return [...byMac.entries()].map(([mac, set]) => ({ mac, addresses: [...set] }));
}

/** Polls until an address shows up; undefined when the timeout passes. */
export async function waitForAddress(lv: Libvirt, dom: DomainRef, wait: WaitForIp, signal?: AbortSignal): Promise<InterfaceAddresses[] | undefined> {
  const deadline = Date.now() + wait.timeoutMs;
  let delay = 1000;
  for (;;) {
    const found = await interfaceAddresses(lv, dom, wait.source, wait.family);
    if (found.some((f) => f.addresses.length > 0)) return found;
    if (Date.now() + delay > deadline || signal?.aborted) return undefined;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 1.5, 5000);
  }
}

/** DHCP lease expiry per MAC on the domain's libvirt networks (lease source only). */
export async function leaseStamps(lv: Libvirt, nics: { mac: string; network?: string }[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const nic of nics) {
    if (!nic.network || !nic.mac) continue;
    try {
      const leases = await lv.dhcpLeases(await lv.lookupNetwork(nic.network), nic.mac);
      for (const l of leases) if (l.mac) out.set(l.mac.toLowerCase(), l.expirytime);
    } catch (err) {
      if (!(err instanceof LibvirtError)) throw err; // a network without leases tells nothing
    }
  }
  return out;
}

/**
 * After a restart the old lease is still valid, so an address is no proof the guest is
 * back: wait until a lease was renewed (its expiry moved), bounded by the timeout.
 */
export async function waitForRenewedLease(lv: Libvirt, nics: { mac: string; network?: string }[], before: Map<string, bigint>, timeoutMs: number): Promise<boolean> {
  if (before.size === 0) return true;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const now = await leaseStamps(lv, nics);
    if ([...before].some(([mac, t]) => (now.get(mac) ?? t) > t)) return true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return false;
}
