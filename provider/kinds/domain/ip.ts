// Waiting for a domain's IP address: polls interface addresses (DHCP lease, guest
// agent, or both; the host's ARP table for bridge and direct NICs) with backoff until the timeout, skipping loopback and link-local.
// A lease listed before this boot (a pinned MAC reused, a restart) is stale until the
// guest renews it: a snapshot taken before the start tells fresh leases from old ones.
import * as net from "net";
import { AddressSource, DomainInterface, DomainRef, isLibvirtError, Libvirt } from "../../libvirt/api";

export type IpSource = "lease" | "agent" | "arp" | "any";
export type IpFamily = "ipv4" | "ipv6" | "any";

export interface WaitForIp {
  timeoutMs: number;
  source: IpSource;
  family: IpFamily;
}

/**
 * libvirt could not read the host's ARP table: libvirt 9.x reads it over netlink and fails
 * ("wrong nlmsg len") on kernels that end the dump in the same read. No wait can help.
 */
export class ArpTableUnreadable extends Error {}

export interface InterfaceAddresses {
  mac: string;
  addresses: string[];
}

/** The DHCP leases of a domain's NICs as they were before it (re)started: "mac ip" → expiry. */
export interface LeaseSnapshot {
  nics: { mac: string; network?: string }[];
  expiry: Map<string, bigint>;
}

/**
 * Whether an address a source reported is a usable one of the family. The guest agent
 * reports what the guest says, so an address counts only when it parses as one (in its
 * canonical form), never as whatever text the guest sent.
 */
function usable(addr: string, type: number, family: IpFamily): boolean {
  const isV6 = type === 1;
  if (family === "ipv4" && isV6) return false;
  if (family === "ipv6" && !isV6) return false;
  if (net.isIP(addr) !== (isV6 ? 6 : 4)) return false;
  if (isV6) return !/^(::1$|fe[89ab][0-9a-f]:)/i.test(addr);
  return !addr.startsWith("127.") && !addr.startsWith("169.254.") && addr !== "0.0.0.0";
}

const leaseKey = (mac: string, ip: string) => `${mac.toLowerCase()} ${ip}`;

async function leaseExpiries(lv: Libvirt, nics: { mac: string; network?: string }[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const nic of nics) {
    if (!nic.network || !nic.mac) continue;
    try {
      for (const l of await lv.dhcpLeases(await lv.lookupNetwork(nic.network), nic.mac)) {
        if (l.mac) out.set(leaseKey(l.mac, l.ipaddr), l.expirytime);
      }
    } catch (err) {
      if (!isLibvirtError(err)) throw err; // a network without leases tells nothing
    }
  }
  return out;
}

/** The leases listed now for these NICs, to be told apart from the ones the next boot gets. */
export async function leaseSnapshot(lv: Libvirt, nics: { mac: string; network?: string }[]): Promise<LeaseSnapshot> {
  return { nics, expiry: await leaseExpiries(lv, nics) };
}

/** Leases of the snapshot that are still listed unrenewed ("mac ip"). */
async function staleLeases(lv: Libvirt, snap: LeaseSnapshot | undefined): Promise<Set<string>> {
  if (!snap || snap.expiry.size === 0) return new Set();
  const now = await leaseExpiries(lv, snap.nics);
  return new Set([...snap.expiry].filter(([k, t]) => now.get(k) === t).map(([k]) => k));
}

/**
 * Current addresses per MAC from the wanted sources (a missing agent is no error).
 * With a snapshot, a lease address from before the (re)start does not count.
 */
export async function interfaceAddresses(
  lv: Libvirt,
  dom: DomainRef,
  source: IpSource,
  family: IpFamily,
  since?: LeaseSnapshot,
): Promise<InterfaceAddresses[]> {
  const sources: number[] = {
    lease: [AddressSource.LEASE],
    agent: [AddressSource.AGENT],
    arp: [AddressSource.ARP],
    any: [AddressSource.LEASE, AddressSource.AGENT],
  }[source];
  const stale = sources.includes(AddressSource.LEASE) ? await staleLeases(lv, since) : new Set<string>();
  const byMac = new Map<string, Set<string>>();
  for (const s of sources) {
    let ifaces: DomainInterface[];
    try {
      ifaces = await lv.interfaceAddresses(dom, s);
    } catch (err) {
      // the agent is optional with "any", and not answering yet while the guest boots
      const agentDown = s === AddressSource.AGENT && isLibvirtError(err) && (source === "any" || isLibvirtError(err, "AGENT_UNRESPONSIVE"));
      if (agentDown) continue;
      if (s === AddressSource.ARP && isLibvirtError(err, "INTERNAL_ERROR") && /nlmsg/.test((err as Error).message))
        throw new ArpTableUnreadable((err as Error).message);
      throw err;
    }
    for (const i of ifaces) {
      const mac = (i.hwaddr ?? "").toLowerCase();
      const set = byMac.get(mac) ?? new Set<string>();
      for (const a of i.addrs) {
        if (s === AddressSource.LEASE && stale.has(leaseKey(mac, a.addr))) continue;
        if (usable(a.addr, a.type, family)) set.add(a.addr);
      }
      byMac.set(mac, set);
    }
  }
  return [...byMac.entries()].map(([mac, set]) => ({ mac, addresses: [...set] }));
}

/** How a wait for an address ended: the addresses, or why none can come (`stopped`), or neither (the timeout passed). */
export interface WaitOutcome {
  found?: InterfaceAddresses[];
  stopped?: string;
}

/**
 * Polls until an address (of this boot, given a snapshot) shows up, the timeout passes, or
 * `stopped` names a reason no address can come any more (the guest is off, its kernel panicked).
 */
export async function waitForAddress(
  lv: Libvirt,
  dom: DomainRef,
  wait: WaitForIp,
  since?: LeaseSnapshot,
  stopped: () => Promise<string | undefined> = async () => undefined,
): Promise<WaitOutcome> {
  const deadline = Date.now() + wait.timeoutMs;
  let delay = 1000;
  for (;;) {
    const found = await interfaceAddresses(lv, dom, wait.source, wait.family, since);
    if (found.some((f) => f.addresses.length > 0)) return { found };
    const reason = await stopped();
    if (reason) return { stopped: reason };
    if (Date.now() + delay > deadline) return {};
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 1.5, 5000);
  }
}
