// Subnets for the networks tests start. libvirt refuses to start a network on a subnet an
// interface of the machine already routes ("Network is already in use by interface …"), and a
// machine can route one a test names (a bridge some earlier run left, a site network). The
// routes that count are those of libvirtd's network namespace.
import * as fs from "fs";
import { labEnv } from "./lab";

/** preferred → the subnet given for it, so a test asking again gets the same one. */
const given = new Map<string, string>();

/** The lab libvirtd's routing table, as the kernel prints it for its network namespace. */
function libvirtdRoutes(): string {
  const pid = fs.readFileSync(labEnv().libvirtdPid, "utf8").trim();
  return fs.readFileSync(`/proc/${pid}/net/route`, "utf8");
}

/** The /24s ("a.b.c") the lab libvirtd's interfaces route now. */
export function routedSubnets(table = libvirtdRoutes()): Set<string> {
  const routed = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    const [, destination, , , , , , mask] = line.trim().split(/\s+/);
    if (!destination || !mask || mask === "00000000") continue;
    // the kernel prints addresses as little-endian hex words
    const octets = (hex: string) => [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16)).reverse();
    const d = octets(destination);
    routed.add(`${d[0]}.${d[1]}.${d[2]}`);
  }
  return routed;
}

/**
 * `preferred` ("192.168.N") when no interface routes it and no other test of this process has it;
 * otherwise the first such /24 of 192.168.200–254. The same answer each time for the same `preferred`.
 */
export function unroutedSubnet(preferred: string): string {
  const earlier = given.get(preferred);
  if (earlier) return earlier;
  const routed = routedSubnets();
  const taken = new Set(given.values());
  const free = (s: string) => !routed.has(s) && !taken.has(s);
  const candidates = [preferred, ...Array.from({ length: 55 }, (_, i) => `192.168.${200 + i}`)];
  const subnet = candidates.find(free);
  if (!subnet) throw new Error(`no unrouted 192.168.x.0/24 left in libvirtd's network namespace for a test network (routed: ${[...routed].join(", ")})`);
  given.set(preferred, subnet);
  return subnet;
}
