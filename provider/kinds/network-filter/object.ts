// A network filter on its host: its rules as libvirt's <filter> XML, and parsed back for read
// and import; found and proven by its UUID; removed. Two rules always come first, so a VM
// whose rules drop what comes in still gets its DHCP lease; a drop or reject of what comes in
// refuses new connections only (state NEW), so the replies to the VM's own connections still reach it.
import { create } from "xmlbuilder2";
import { children, El, parseXml } from "../../xml/dom";
import { KvmError } from "../../kvm-error";
import { isLibvirtError, Libvirt, unlessMissing } from "../../libvirt/api";
import { byUuid, ImportLookup, JournalledObject } from "../../resources/object-kind";

export const FILTER_ACTIONS = ["accept", "drop", "reject"] as const;
export const FILTER_DIRECTIONS = ["in", "out", "inout"] as const;
export const FILTER_PROTOCOLS = ["tcp", "udp", "icmp", "all"] as const;
export type FilterAction = (typeof FILTER_ACTIONS)[number];
export type FilterDirection = (typeof FILTER_DIRECTIONS)[number];
export type FilterProtocol = (typeof FILTER_PROTOCOLS)[number];

export interface FilterRule {
  action: FilterAction;
  /** in: to the VM; out: from it; inout: both. */
  direction: FilterDirection;
  protocol: FilterProtocol;
  /** The destination port or range: "22", "8000-8080" (tcp and udp). */
  ports?: string;
  /** The other side: the source of what comes in, the destination of what goes out ("10.0.0.0/8"). */
  cidr?: string;
  /** libvirt's order of rules, lowest first (-999 to 1000; default 500). */
  priority?: number;
}

export interface NetworkFilterSpec {
  name: string;
  uuid?: string;
  rules: FilterRule[];
}

export const DEFAULT_PRIORITY = 500;
/** The DHCP rules' priority: before any rule of the program's. */
const DHCP_PRIORITY = -1000;

/** The DHCP exchange of the VM's own NIC, accepted whatever the rules say. */
const DHCP_RULES = [
  { direction: "out", src: "68", dst: "67" },
  { direction: "in", src: "67", dst: "68" },
] as const;

function portRange(ports: string): { start: string; end: string } {
  const [start, end] = ports.split("-");
  return { start, end: end ?? start };
}

export function networkFilterXml(spec: NetworkFilterSpec): string {
  const filter = create().ele("filter", { name: spec.name, chain: "root" });
  if (spec.uuid) filter.ele("uuid").txt(spec.uuid);
  for (const d of DHCP_RULES) {
    filter.ele("rule", { action: "accept", direction: d.direction, priority: String(DHCP_PRIORITY) }).ele("udp", { srcportstart: d.src, dstportstart: d.dst });
  }
  for (const r of spec.rules) {
    const match: Record<string, string> = {};
    if (r.ports) {
      const { start, end } = portRange(r.ports);
      Object.assign(match, { dstportstart: start, dstportend: end });
    }
    if (r.cidr) {
      const [address, prefix] = r.cidr.split("/");
      // the other side: where what comes in is from, where what goes out is to
      const side = r.direction === "out" ? "dst" : "src";
      Object.assign(match, { [`${side}ipaddr`]: address, [`${side}ipmask`]: prefix ?? "32" });
    }
    if (r.action !== "accept" && r.direction !== "out") match.state = "NEW";
    filter.ele("rule", { action: r.action, direction: r.direction, priority: String(r.priority ?? DEFAULT_PRIORITY) }).ele(r.protocol, match);
  }
  return filter.end({ prettyPrint: true, headless: true });
}

export interface ParsedNetworkFilter {
  name: string;
  uuid: string;
  /** The rules as a NetworkFilter states them; undefined when a rule is not one it can state (made by hand). */
  rules?: FilterRule[];
}

const isDhcpRule = (rule: El, match: El) =>
  rule.getAttribute("priority") === String(DHCP_PRIORITY) &&
  match.nodeName === "udp" &&
  DHCP_RULES.some(
    (d) => rule.getAttribute("direction") === d.direction && match.getAttribute("srcportstart") === d.src && match.getAttribute("dstportstart") === d.dst,
  );

const oneOf = (list: readonly string[], v: string) => list.includes(v);
/** What a rule of a NetworkFilter writes on its match; anything else is not one of its rules. */
const STATED = ["dstportstart", "dstportend", "srcipaddr", "srcipmask", "dstipaddr", "dstipmask", "state"];

function ruleOf(rule: El): FilterRule | undefined {
  const matches = Array.from({ length: rule.childNodes.length }, (_, i) => rule.childNodes[i]).filter((n) => n.nodeType === 1);
  const [match] = matches;
  const action = rule.getAttribute("action") ?? "";
  const direction = rule.getAttribute("direction") ?? "";
  if (matches.length !== 1 || !oneOf(FILTER_PROTOCOLS, match.nodeName) || !oneOf(FILTER_ACTIONS, action) || !oneOf(FILTER_DIRECTIONS, direction))
    return undefined;
  const attr = (n: string) => match.getAttribute(n) ?? undefined;
  const attributes = (match as unknown as { attributes: { length: number; [i: number]: { name: string } } }).attributes;
  for (let i = 0; i < attributes.length; i++) if (!STATED.includes(attributes[i].name)) return undefined;
  const start = attr("dstportstart");
  const end = attr("dstportend");
  const side = direction === "out" ? "dst" : "src";
  const address = attr(`${side}ipaddr`);
  const priority = Number(rule.getAttribute("priority") ?? DEFAULT_PRIORITY);
  return {
    action: action as FilterAction,
    direction: direction as FilterDirection,
    protocol: match.nodeName as FilterProtocol,
    ...(start ? { ports: end && end !== start ? `${start}-${end}` : start } : {}),
    ...(address ? { cidr: `${address}/${attr(`${side}ipmask`) ?? "32"}` } : {}),
    ...(priority !== DEFAULT_PRIORITY ? { priority } : {}),
  };
}

export function parseNetworkFilterXml(xml: string): ParsedNetworkFilter {
  const root = parseXml(xml);
  const rules: FilterRule[] = [];
  let stated = true;
  for (const rule of children(root, "rule")) {
    const match = Array.from({ length: rule.childNodes.length }, (_, i) => rule.childNodes[i]).find((n) => n.nodeType === 1);
    if (match && isDhcpRule(rule, match)) continue;
    const r = ruleOf(rule);
    if (r) rules.push(r);
    else stated = false;
  }
  // another filter pulled in (<filterref>) is not a rule a NetworkFilter states
  if (children(root, "filterref").length) stated = false;
  const uuid = children(root, "uuid")[0]?.textContent ?? "";
  return { name: root.getAttribute("name") ?? "", uuid, rules: stated ? rules : undefined };
}

/** A network filter as libvirt names it. */
export type NetworkFilterRef = Awaited<ReturnType<Libvirt["lookupNetworkFilter"]>>;

/** Undefines the network filter; libvirt refuses while a VM's NIC uses it, and the error says which fix. */
export async function removeNetworkFilter(lv: Libvirt, filter: NetworkFilterRef, host: string): Promise<void> {
  try {
    await lv.undefineNetworkFilter(filter);
  } catch (err) {
    if (!isLibvirtError(err, "OPERATION_INVALID")) throw err;
    throw new KvmError("conflict", `network filter "${filter.name}" is used by a VM's NIC (${(err as Error).message})`, {
      host,
      fix: "Delete those domains or remove the filter from their NICs first (a NetworkFilter passed as a NIC's filter is deleted after its domains)",
    });
  }
}

/** How `pulumi import` finds one by its UUID. */
export const networkFilterImport: ImportLookup<NetworkFilterRef> = {
  kind: "NetworkFilter",
  what: "network filter",
  listing: "virsh nwfilter-list",
  lookup: (lv, uuid) => unlessMissing(lv.lookupNetworkFilterByUuid(uuid), "NO_NWFILTER"),
};

export const networkFilterObject: JournalledObject<NetworkFilterRef> = {
  gone: ["NO_NWFILTER"],
  removal: (name) => `virsh nwfilter-undefine ${name}`,
  named: {
    type: "NetworkFilter",
    what: "network filter",
    exists: async (lv, name) => !!(await unlessMissing(lv.lookupNetworkFilter(name), "NO_NWFILTER")),
    define: "virsh nwfilter-define",
  },
  find: (lv, made) => byUuid(made, lv.lookupNetworkFilter(made.name)),
  remove: removeNetworkFilter,
};
