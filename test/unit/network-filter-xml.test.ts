// A NetworkFilter's rules as libvirt's nwfilter XML (libvirt's own schema accepts it), and
// read back: the DHCP rules come first and are not the program's; a drop of what comes in
// refuses new connections only; cidr is the other side of the traffic.
import * as assert from "assert";
import { FilterRule, networkFilterXml, parseNetworkFilterXml } from "../../provider/kinds/network-filter/object";
import { checkNetworkFilterInputs } from "../../provider/kinds/network-filter";
import { assertValidXml } from "../support/xml-schema";
import { Failures } from "../../provider/resources/input-checks";

const rules: FilterRule[] = [
  { action: "accept", direction: "in", protocol: "tcp", ports: "22" },
  { action: "accept", direction: "in", protocol: "tcp", ports: "8000-8080", cidr: "10.0.0.0/8", priority: 100 },
  { action: "accept", direction: "out", protocol: "udp", ports: "53", cidr: "192.168.150.1/32" },
  { action: "reject", direction: "inout", protocol: "icmp" },
  { action: "drop", direction: "in", protocol: "all", priority: 900 },
];
const uuid = "0b5b6a7e-1a2b-4c3d-9e8f-001122334455";

describe("network filter XML", () => {
  const xml = networkFilterXml({ name: "web", uuid, rules });

  it("is XML libvirt's nwfilter schema accepts", () => assertValidXml(xml, "nwfilter"));

  it("lets the VM's DHCP through before any rule of the program's", () => {
    const [out, into] = [...xml.matchAll(/<rule [^>]*priority="-1000"[^>]*>\s*<udp [^>]*\/>/g)].map((m) => m[0]);
    assert.match(out, /direction="out"[\s\S]*srcportstart="68" dstportstart="67"/);
    assert.match(into, /direction="in"[\s\S]*srcportstart="67" dstportstart="68"/);
  });

  it("drops and rejects only new connections of what comes in; what goes out as written", () => {
    assert.match(xml, /<rule action="drop" direction="in" priority="900">\s*<all state="NEW"\/>/);
    assert.match(xml, /<rule action="reject" direction="inout" priority="500">\s*<icmp state="NEW"\/>/);
    assert.doesNotMatch(xml, /action="accept"[^>]*>\s*<[a-z]+ [^>]*state=/, "accepts match every state");
  });

  it("matches the destination ports, and the other side's address: the source of what comes in, the destination of what goes out", () => {
    assert.match(xml, /<tcp dstportstart="8000" dstportend="8080" srcipaddr="10\.0\.0\.0" srcipmask="8"\/>/);
    assert.match(xml, /<udp dstportstart="53" dstportend="53" dstipaddr="192\.168\.150\.1" dstipmask="32"\/>/);
  });

  it("reads back the program's rules, and nothing for a filter made by hand that it cannot state", () => {
    const parsed = parseNetworkFilterXml(xml);
    assert.deepStrictEqual(parsed, { name: "web", uuid, rules });
    const byHand = `<filter name="clean-traffic" chain="root"><uuid>${uuid}</uuid><filterref filter="no-mac-spoofing"/></filter>`;
    assert.strictEqual(parseNetworkFilterXml(byHand).rules, undefined);
    const otherMatch = `<filter name="x" chain="root"><rule action="drop" direction="in"><mac protocolid="arp"/></rule></filter>`;
    assert.strictEqual(parseNetworkFilterXml(otherMatch).rules, undefined);
  });
});

describe("network filter inputs", () => {
  const check = (r: Partial<FilterRule>) => {
    const failures: Failures = [];
    checkNetworkFilterInputs(failures, { host: { address: "hv1" }, name: "f", rules: [r as FilterRule] });
    return failures.map((f) => `${f.property}: ${f.reason}`);
  };

  it("accepts the rules a user writes", () => {
    for (const r of rules) assert.deepStrictEqual(check(r), [], JSON.stringify(r));
  });

  it("refuses each wrong part of a rule, naming it and what it takes", () => {
    const base = { action: "accept", direction: "in", protocol: "tcp" } as const;
    assert.match(check({ ...base, action: "deny" as never }).join(), /rules\[0\]\.action: .*must be one of "accept", "drop", "reject", got "deny"/);
    assert.match(check({ ...base, direction: "ingress" as never }).join(), /rules\[0\]\.direction: .*"in", "out", "inout"/);
    assert.match(check({ ...base, protocol: "sctp" as never }).join(), /rules\[0\]\.protocol: .*"tcp", "udp", "icmp", "all"/);
    assert.match(check({ ...base, ports: "80-22" }).join(), /rules\[0\]\.ports: .*"22" or "8000-8080", got "80-22"/);
    assert.match(check({ ...base, ports: "70000" }).join(), /rules\[0\]\.ports/);
    assert.match(check({ ...base, protocol: "icmp", ports: "22" }).join(), /rules\[0\]\.ports: .*ports are for tcp and udp, not "icmp"/);
    assert.match(check({ ...base, cidr: "10.0.0.0" }).join(), /rules\[0\]\.cidr: .*IPv4 CIDR such as "10\.0\.0\.0\/8"/);
    assert.match(check({ ...base, cidr: "fd00::/8" }).join(), /rules\[0\]\.cidr/);
    assert.match(check({ ...base, direction: "inout", cidr: "10.0.0.0/8" }).join(), /rules\[0\]\.cidr: .*give direction "in" or "out"/);
    assert.match(check({ ...base, priority: -1000 }).join(), /rules\[0\]\.priority: .*-999 to 1000/);
    assert.match(check({ ...base, priority: 1.5 }).join(), /rules\[0\]\.priority/);
  });
});
