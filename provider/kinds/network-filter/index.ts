// The NetworkFilter kind: firewall rules (libvirt's nwfilter) that the NICs naming it get;
// its inputs' check, its lifecycle and its stack record. Rules change in place: the filter is
// defined again under its name and UUID, and libvirt applies the new rules to the running
// NICs. Delete refuses while a VM uses it.
import { checkNamedInputs, namedObjectCheck } from "../../resources/named-check";
import { Libvirt, unlessMissing } from "../../libvirt/api";
import { Claims, declaredDiff } from "../../resources/collisions";
import { Failures, reporter } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import { processContext, ResourceContext } from "../../resources/context";
import { createHostObject, findRecorded, nameClaims } from "../../resources/host-object";
import { importByUuid } from "../../resources/import";
import { deleteRecorded, readRecorded, RecordedObject, updateRecorded } from "../../resources/lifecycle";
import { parseCidr } from "../network/inputs";
import { networkFilterDeclaration, NetworkFilterInputs, NetworkFilterOutputs } from "./declaration";
import {
  FILTER_ACTIONS,
  FILTER_DIRECTIONS,
  FILTER_PROTOCOLS,
  FilterRule,
  networkFilterXml,
  NetworkFilterRef,
  parseNetworkFilterXml,
  networkFilterImport,
  removeNetworkFilter,
} from "./object";
import { ResourceProvider } from "../../resources/types";
import { KvmError } from "../../errors";
import type { KindModule } from "../../resources/kind";
import { present, theRecorded } from "../../resources/stack-record";

const PORTS_RE = /^(\d{1,5})(?:-(\d{1,5}))?$/;

const choices = (list: readonly string[]) => list.map((c) => `"${c}"`).join(", ");

/** One rule's problems, each named by its path (rules[2].ports). */
function checkRule(bad: (property: string, reason: string) => void, r: FilterRule, at: string): void {
  if (!r || typeof r !== "object") return bad(at, "must be { action, direction, protocol, ports?, cidr?, priority? }");
  const oneOf = (k: "action" | "direction" | "protocol", list: readonly string[]) => {
    if (!isUnknown(r[k]) && !list.includes(r[k])) bad(`${at}.${k}`, `must be one of ${choices(list)}, got ${JSON.stringify(r[k])}`);
  };
  oneOf("action", FILTER_ACTIONS);
  oneOf("direction", FILTER_DIRECTIONS);
  oneOf("protocol", FILTER_PROTOCOLS);
  if (r.ports !== undefined && !isUnknown(r.ports)) {
    const m = PORTS_RE.exec(String(r.ports));
    const [start, end] = m ? [Number(m[1]), Number(m[2] ?? m[1])] : [0, 0];
    if (r.protocol !== "tcp" && r.protocol !== "udp")
      bad(`${at}.ports`, `ports are for tcp and udp, not ${JSON.stringify(r.protocol)}: leave them out or set protocol`);
    else if (!m || start < 1 || end > 65535 || start > end)
      bad(`${at}.ports`, `must be a port or a range of ports between 1 and 65535, "22" or "8000-8080", got ${JSON.stringify(r.ports)}`);
  }
  if (r.cidr !== undefined && !isUnknown(r.cidr)) {
    if (parseCidr(String(r.cidr))?.family !== "ipv4") bad(`${at}.cidr`, `must be an IPv4 CIDR such as "10.0.0.0/8", got ${JSON.stringify(r.cidr)}`);
    else if (r.direction === "inout")
      bad(`${at}.cidr`, 'the other side is the source of what comes in and the destination of what goes out: give direction "in" or "out"');
  }
  if (r.priority !== undefined && !isUnknown(r.priority) && (!Number.isInteger(r.priority) || r.priority < -999 || r.priority > 1000))
    bad(`${at}.priority`, `must be a whole number from -999 to 1000 (lowest first; -1000 keeps DHCP working), got ${JSON.stringify(r.priority)}`);
}

export function checkNetworkFilterInputs(failures: Failures, news: NetworkFilterInputs): NetworkFilterInputs {
  const inputs = checkNamedInputs(failures, networkFilterDeclaration, news);
  const bad = reporter(failures);
  if (isUnknown(news.rules)) return inputs;
  if (!Array.isArray(news.rules))
    bad("rules", 'is required, a list of rules: [{ action: "accept", direction: "in", protocol: "tcp", ports: "22" }] (an empty list lets everything pass)');
  else news.rules.forEach((r, i) => !isUnknown(r) && checkRule(bad, r, `rules[${i}]`));
  return inputs;
}

const findFilter = (lv: Libvirt, name: string) => unlessMissing(lv.lookupNetworkFilter(name), "NO_NWFILTER");

const claimsOf = (f: Pick<NetworkFilterInputs, "host" | "name">): Claims =>
  nameClaims(f.host, f.name, "networkFilter", `network filter "${f.name}"`, (lv) => findFilter(lv, f.name));

/** The rules on the host: a filter changed by hand into rules a NetworkFilter cannot state reads as no rules (a diff that redefines it). */
async function observe(lv: Libvirt, ref: NetworkFilterRef, inputs: NetworkFilterInputs): Promise<NetworkFilterOutputs> {
  const d = parseNetworkFilterXml(await lv.networkFilterXml(ref));
  return { ...inputs, kvmKind: "NetworkFilter", rules: d.rules ?? [], uuid: d.uuid };
}

/** The filter of the record: another filter under the name is not this resource's. */
const recordedFilter = (f: Pick<NetworkFilterInputs, "host" | "name">, uuid: string): RecordedObject<NetworkFilterRef> => ({
  host: f.host,
  what: `network filter ${f.name}`,
  find: (lv) => findRecorded(findFilter(lv, f.name), uuid),
});

export function createNetworkFilterProvider(ctx: ResourceContext): ResourceProvider<NetworkFilterInputs, NetworkFilterOutputs> {
  return {
    check: namedObjectCheck(ctx, checkNetworkFilterInputs, claimsOf),

    diff: declaredDiff(networkFilterDeclaration, claimsOf),

    create: (inputs) =>
      createHostObject(ctx.pool, inputs, {
        kind: "networkFilter",
        what: `network filter "${inputs.name}"`,
        find: (lv) => findFilter(lv, inputs.name),
        // taken over with the program's rules, under its own UUID
        adopt: async (lv, ref) =>
          void (await lv.defineNetworkFilter(networkFilterXml({ name: inputs.name, uuid: ref.uuid.toString("hex"), rules: inputs.rules }))),
        define: (lv, uuid) => lv.defineNetworkFilter(networkFilterXml({ name: inputs.name, uuid, rules: inputs.rules })),
        bringToState: (lv, ref) => observe(lv, ref, inputs),
      }),

    read: (id, props) => readRecorded(ctx.pool, recordedFilter(props, id), id, props, (lv, ref) => observe(lv, ref, props)),

    update: (id, olds, news) =>
      updateRecorded(ctx.pool, recordedFilter({ ...olds, host: news.host }, id), async (lv, ref) => {
        await lv.defineNetworkFilter(networkFilterXml({ name: ref.name, uuid: ref.uuid.toString("hex"), rules: news.rules }));
        return { outs: await observe(lv, ref, news) };
      }),

    delete: (id, props) => deleteRecorded(ctx.pool, recordedFilter(props, id), (lv, ref) => removeNetworkFilter(lv, ref, hostLabel(props.host))),

    importObject: importByUuid(ctx.pool, networkFilterImport, async (lv, ref, host, label) => {
      const d = parseNetworkFilterXml(await lv.networkFilterXml(ref));
      if (!d.rules) {
        throw new KvmError(
          "permanent",
          `cannot import network filter ${d.name}: it has rules a NetworkFilter cannot state (other matches, or other filters it includes)`,
          {
            host: label,
            fix: "Leave it out, or define it again with rules of one protocol each (tcp, udp, icmp, all) matching ports and an address",
          },
        );
      }
      const inputs: NetworkFilterInputs = { host, name: d.name, rules: d.rules };
      return { id: d.uuid, inputs, outs: await observe(lv, ref, inputs) };
    }),
  };
}

export const networkFilterProvider = createNetworkFilterProvider(processContext);

export const networkFilterKind: KindModule<NetworkFilterInputs, NetworkFilterOutputs> = {
  declaration: networkFilterDeclaration,
  provider: networkFilterProvider,
  record: {
    read: (o) => ({ uuid: o.uuid }),
    onHost: (lv, r) => present(theRecorded(r, lv.lookupNetworkFilter(r.name))),
  },
};
