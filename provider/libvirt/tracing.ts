// Tracing decorator over the seam: one log line per libvirt call after it returns,
// naming the public API, the identifiers it was given, curated results and the
// duration; failures with libvirt's code and code name. Level 2 adds domain/volume
// XML. Upload bodies, keys and cloud-init user data never reach this layer's output:
// only the fields listed below are printed.
import { log, logLevel } from "../log";
import { LibvirtError } from "../rpc/errors";
import { procedures } from "../rpc/procedures";
import type { DomainRef, Libvirt, NetworkRef, PoolRef, VolumeRef } from "./api";

type Fields = Record<string, unknown>;

interface TraceSpec {
  /** The procedure whose public API name is logged. */
  proc: keyof typeof procedures;
  ids(args: any[]): Fields;
  result?(ret: any): Fields;
  /** XML shown at level 2. */
  xml?(args: any[], ret: any): string | undefined;
}

const pool = (p: PoolRef) => p.name;
const vol = (v: VolumeRef) => `${v.pool}/${v.name}`;
const dom = (d: DomainRef) => d.name;
const net = (n: NetworkRef) => n.name;
const uuid = (b: Buffer) => b.toString("hex");

const specs: { [K in keyof Libvirt]: TraceSpec } = {
  libVersion: { proc: "connectGetLibVersion", ids: () => ({}), result: (v) => ({ version: v }) },
  hostname: { proc: "connectGetHostname", ids: () => ({}), result: (h) => ({ hostname: h }) },
  lookupPool: { proc: "storagePoolLookupByName", ids: ([name]) => ({ pool: name }), result: (p) => ({ uuid: uuid(p.uuid) }) },
  poolInfo: { proc: "storagePoolGetInfo", ids: ([p]) => ({ pool: pool(p) }), result: (i) => ({ state: i.state, available: i.available }) },
  poolXml: { proc: "storagePoolGetXmlDesc", ids: ([p]) => ({ pool: pool(p) }), xml: (_a, x) => x },
  listVolumes: { proc: "storagePoolListAllVolumes", ids: ([p]) => ({ pool: pool(p) }), result: (v) => ({ count: v.length }) },
  lookupVolume: { proc: "storageVolLookupByName", ids: ([p, name]) => ({ vol: `${pool(p)}/${name}` }), result: (v) => ({ key: v.key }) },
  volumeInfo: { proc: "storageVolGetInfo", ids: ([v]) => ({ vol: vol(v) }), result: (i) => ({ capacity: i.capacity, allocation: i.allocation }) },
  volumeXml: { proc: "storageVolGetXmlDesc", ids: ([v]) => ({ vol: vol(v) }), xml: (_a, x) => x },
  volumePath: { proc: "storageVolGetPath", ids: ([v]) => ({ vol: vol(v) }), result: (p) => ({ path: p }) },
  createVolume: { proc: "storageVolCreateXml", ids: ([p]) => ({ pool: pool(p) }), result: (v) => ({ vol: vol(v) }), xml: ([, x]) => x },
  deleteVolume: { proc: "storageVolDelete", ids: ([v]) => ({ vol: vol(v) }) },
  resizeVolume: { proc: "storageVolResize", ids: ([v, capacity, flags]) => ({ vol: vol(v), capacity, flags }) },
  uploadVolume: { proc: "storageVolUpload", ids: ([v, , o]) => ({ vol: vol(v), sparse: !!o?.sparse }), result: (p) => ({ covered: p.covered, sent: p.sent }) },
  downloadVolume: { proc: "storageVolDownload", ids: ([v]) => ({ vol: vol(v) }) },
  listDomains: { proc: "connectListAllDomains", ids: () => ({}), result: (d) => ({ count: d.length }) },
  lookupDomain: { proc: "domainLookupByName", ids: ([name]) => ({ domain: name }), result: (d) => ({ uuid: uuid(d.uuid), id: d.id }) },
  lookupDomainByUuid: { proc: "domainLookupByUuid", ids: ([u]) => ({ uuid: uuid(u) }), result: (d) => ({ domain: d.name }) },
  domainXml: { proc: "domainGetXmlDesc", ids: ([d, flags]) => ({ domain: dom(d), flags }), xml: (_a, x) => x },
  defineDomain: { proc: "domainDefineXmlFlags", ids: () => ({}), result: (d) => ({ domain: d.name, uuid: uuid(d.uuid) }), xml: ([x]) => x },
  undefineDomain: { proc: "domainUndefineFlags", ids: ([d, flags]) => ({ domain: dom(d), flags }) },
  startDomain: { proc: "domainCreateWithFlags", ids: ([d]) => ({ domain: dom(d) }), result: (d) => ({ id: d.id }) },
  shutdownDomain: { proc: "domainShutdown", ids: ([d]) => ({ domain: dom(d) }) },
  destroyDomain: { proc: "domainDestroy", ids: ([d]) => ({ domain: dom(d) }) },
  domainState: { proc: "domainGetState", ids: ([d]) => ({ domain: dom(d) }), result: (s) => ({ state: s.state, reason: s.reason }) },
  domainAutostart: { proc: "domainGetAutostart", ids: ([d]) => ({ domain: dom(d) }), result: (a) => ({ autostart: a }) },
  setDomainAutostart: { proc: "domainSetAutostart", ids: ([d, a]) => ({ domain: dom(d), autostart: a }) },
  domainMetadata: { proc: "domainGetMetadata", ids: ([d, uri]) => ({ domain: dom(d), uri }) },
  interfaceAddresses: {
    proc: "domainInterfaceAddresses", ids: ([d, source]) => ({ domain: dom(d), source }),
    result: (ifs) => ({ addresses: ifs.flatMap((i: any) => i.addrs.map((a: any) => a.addr)).join(",") || "none" }),
  },
  lookupNetwork: { proc: "networkLookupByName", ids: ([name]) => ({ network: name }) },
  networkIsActive: { proc: "networkIsActive", ids: ([n]) => ({ network: net(n) }), result: (a) => ({ active: a }) },
  dhcpLeases: { proc: "networkGetDhcpLeases", ids: ([n, mac]) => ({ network: net(n), mac: mac ?? "any" }), result: (l) => ({ count: l.length }) },
};

function format(fields: Fields): string {
  return Object.entries(fields).map(([k, v]) => `${k}=${String(v)}`).join(" ");
}

function line(host: string, spec: TraceSpec, args: any[], started: number, outcome: Fields): string {
  const ms = Date.now() - started;
  return `host=${host} rpc=${procedures[spec.proc].api} ${format({ ...spec.ids(args), ...outcome })} dur=${ms}ms`.replace(/ +/g, " ");
}

function failure(err: unknown): Fields {
  if (err instanceof LibvirtError) return { error: JSON.stringify(err.message), code: err.code, codeName: err.codeName };
  return { error: JSON.stringify(err instanceof Error ? err.message : String(err)) };
}

/** Wraps a Libvirt so every call is logged (when PULUMI_KVM_LOG ≥ 1). */
export function traced(inner: Libvirt, host: string): Libvirt {
  const out: Partial<Record<keyof Libvirt, unknown>> = {};
  for (const name of Object.keys(specs) as (keyof Libvirt)[]) {
    const spec = specs[name];
    const fn = (inner[name] as (...a: any[]) => any).bind(inner);
    if (name === "downloadVolume") {
      out[name] = async function* (...args: any[]) {
        const started = Date.now();
        let bytes = 0;
        try {
          for await (const chunk of fn(...args)) { bytes += chunk.length; yield chunk; }
          log(line(host, spec, args, started, { bytes }));
        } catch (err) {
          log(line(host, spec, args, started, { bytes, ...failure(err) }));
          throw err;
        }
      };
      continue;
    }
    out[name] = async (...args: any[]) => {
      const started = Date.now();
      try {
        const ret = await fn(...args);
        if (logLevel() >= 1) {
          log(line(host, spec, args, started, spec.result ? spec.result(ret) : {}));
          const xml = spec.xml?.(args, ret);
          if (xml) log(`host=${host} rpc=${procedures[spec.proc].api} xml=${JSON.stringify(xml)}`, 2);
        }
        return ret;
      } catch (err) {
        log(line(host, spec, args, started, failure(err)));
        throw err;
      }
    };
  }
  return out as Libvirt;
}
