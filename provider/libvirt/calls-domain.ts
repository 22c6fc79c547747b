// The libvirt calls on domains: rows of the call table (calls.ts).
import { array, int, struct, uhyper, uint } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { domainInterface, domainRef, nonnullString, remoteString, uuid } from "../rpc/types";
import type { DomainRef } from "../rpc/types";
import { BLOCK_RESIZE_BYTES, dom, flags, hex, inbound, LIST_MAX, none, nothing, read, write, Impact, MetadataType } from "./call-rows";

/** A call given one device's XML (attach, detach, update), applied to the running VM, its definition or both. */
const deviceCall = (num: number, name: string) =>
  write(
    procedure(num, name, struct({ dom: domainRef, xml: nonnullString, flags }), none),
    (d: DomainRef, xml: string, impact: number) => ({ dom: d, xml, flags: impact }),
    nothing,
    { ids: (d, _xml, impact) => ({ domain: dom(d), impact }), xml: ([, xml]) => xml },
  );

export const domainCalls = {
  // domains
  listDomains: read(
    procedure(273, "virConnectListAllDomains", struct({ needResults: int, flags }), struct({ domains: array(domainRef, LIST_MAX), ret: uint })),
    () => ({ needResults: 1, flags: 0 }),
    (r) => r.domains,
    { ids: () => ({}), result: (d) => ({ count: d.length }) },
  ),
  lookupDomain: read(
    procedure(23, "virDomainLookupByName", struct({ name: nonnullString }), struct({ dom: domainRef })),
    (name: string) => ({ name }),
    (r) => r.dom,
    { ids: (name) => ({ domain: name }), result: (d) => ({ uuid: hex(d.uuid), id: d.id }) },
  ),
  lookupDomainByUuid: read(
    procedure(24, "virDomainLookupByUUID", struct({ uuid }), struct({ dom: domainRef })),
    (u: Buffer) => ({ uuid: u }),
    (r) => r.dom,
    { ids: (u) => ({ uuid: hex(u) }), result: (d) => ({ domain: d.name }) },
  ),
  domainXml: read(
    procedure(14, "virDomainGetXMLDesc", struct({ dom: domainRef, flags }), struct({ xml: nonnullString })),
    (d: DomainRef, f: number) => ({ dom: d, flags: f }),
    (r) => r.xml,
    { ids: (d, f) => ({ domain: dom(d), flags: f }), xml: (_a, x) => x },
  ),
  defineDomain: write(
    procedure(350, "virDomainDefineXMLFlags", struct({ xml: nonnullString, flags }), struct({ dom: domainRef })),
    (xml: string) => ({ xml, flags: 0 }),
    (r) => r.dom,
    { ids: () => ({}), result: (d) => ({ domain: d.name, uuid: hex(d.uuid) }), xml: ([x]) => x },
  ),
  undefineDomain: write(
    procedure(231, "virDomainUndefineFlags", struct({ dom: domainRef, flags }), none),
    (d: DomainRef, f: number) => ({ dom: d, flags: f }),
    nothing,
    { ids: (d, f) => ({ domain: dom(d), flags: f }) },
  ),
  startDomain: write(
    procedure(196, "virDomainCreateWithFlags", struct({ dom: domainRef, flags }), struct({ dom: domainRef })),
    (d: DomainRef, f: number) => ({ dom: d, flags: f }),
    (r) => r.dom,
    { ids: (d, f) => ({ domain: dom(d), flags: f }), result: (d) => ({ id: d.id }) },
  ),
  resumeDomain: write(procedure(28, "virDomainResume", struct({ dom: domainRef }), none), (d: DomainRef) => ({ dom: d }), nothing, {
    ids: (d) => ({ domain: dom(d) }),
  }),
  /** The guest's serial console, read only: its bytes come on the stream, nothing is ever sent to the guest. */
  openConsole: inbound(
    procedure(201, "virDomainOpenConsole", struct({ dom: domainRef, devName: remoteString, flags }), none),
    (d: DomainRef) => ({ dom: d, devName: null, flags: 0 }),
    { ids: (d) => ({ domain: dom(d) }) },
  ),
  shutdownDomain: write(procedure(33, "virDomainShutdown", struct({ dom: domainRef }), none), (d: DomainRef) => ({ dom: d }), nothing, {
    ids: (d) => ({ domain: dom(d) }),
  }),
  destroyDomain: write(procedure(12, "virDomainDestroy", struct({ dom: domainRef }), none), (d: DomainRef) => ({ dom: d }), nothing, {
    ids: (d) => ({ domain: dom(d) }),
  }),
  resizeDomainDisk: write(
    procedure(251, "virDomainBlockResize", struct({ dom: domainRef, disk: nonnullString, size: uhyper, flags }), none),
    (d: DomainRef, disk: string, size: bigint) => ({ dom: d, disk, size, flags: BLOCK_RESIZE_BYTES }),
    nothing,
    { ids: (d, disk, size) => ({ domain: dom(d), disk, size }) },
  ),
  setDomainVcpus: write(
    procedure(199, "virDomainSetVcpusFlags", struct({ dom: domainRef, nvcpus: uint, flags }), none),
    (d: DomainRef, nvcpus: number, impact: number) => ({ dom: d, nvcpus, flags: impact }),
    nothing,
    { ids: (d, nvcpus, impact) => ({ domain: dom(d), vcpus: nvcpus, impact }) },
  ),
  setDomainMemory: write(
    procedure(204, "virDomainSetMemoryFlags", struct({ dom: domainRef, memory: uhyper, flags }), none),
    (d: DomainRef, kib: bigint, impact: number) => ({ dom: d, memory: kib, flags: impact }),
    nothing,
    { ids: (d, kib, impact) => ({ domain: dom(d), kib, impact }) },
  ),
  attachDevice: deviceCall(160, "virDomainAttachDeviceFlags"),
  detachDevice: deviceCall(161, "virDomainDetachDeviceFlags"),
  /** Changes a device in place (a NIC's link state): the device XML names it by its MAC or target. */
  updateDevice: deviceCall(174, "virDomainUpdateDeviceFlags"),
  /** A domain's state and reason (DomainState, and the reason enum of that state). */
  domainState: read(
    procedure(212, "virDomainGetState", struct({ dom: domainRef, flags }), struct({ state: int, reason: int })),
    (d: DomainRef) => ({ dom: d, flags: 0 }),
    (r) => r,
    { ids: (d) => ({ domain: dom(d) }), result: (s) => ({ state: s.state, reason: s.reason }) },
  ),
  domainAutostart: read(
    procedure(15, "virDomainGetAutostart", struct({ dom: domainRef }), struct({ autostart: int })),
    (d: DomainRef) => ({ dom: d }),
    (r) => r.autostart === 1,
    { ids: (d) => ({ domain: dom(d) }), result: (a) => ({ autostart: a }) },
  ),
  setDomainAutostart: write(
    procedure(29, "virDomainSetAutostart", struct({ dom: domainRef, autostart: int }), none),
    (d: DomainRef, autostart: boolean) => ({ dom: d, autostart: autostart ? 1 : 0 }),
    nothing,
    { ids: (d, a) => ({ domain: dom(d), autostart: a }) },
  ),
  domainMetadata: read(
    procedure(265, "virDomainGetMetadata", struct({ dom: domainRef, type: int, uri: remoteString, flags }), struct({ metadata: nonnullString })),
    (d: DomainRef, uri: string) => ({ dom: d, type: MetadataType.ELEMENT, uri, flags: Impact.CURRENT }),
    (r) => r.metadata,
    { ids: (d, uri) => ({ domain: dom(d), uri }) },
  ),
  setDomainMetadata: write(
    procedure(264, "virDomainSetMetadata", struct({ dom: domainRef, type: int, metadata: remoteString, key: remoteString, uri: remoteString, flags }), none),
    (d: DomainRef, xml: string, key: string, uri: string, impact: number) => ({ dom: d, type: MetadataType.ELEMENT, metadata: xml, key, uri, flags: impact }),
    nothing,
    { ids: (d, _xml, key, uri, impact) => ({ domain: dom(d), key, uri, impact }) },
  ),
  interfaceAddresses: read(
    procedure(353, "virDomainInterfaceAddresses", struct({ dom: domainRef, source: uint, flags }), struct({ ifaces: array(domainInterface, 2048) })),
    (d: DomainRef, source: number) => ({ dom: d, source, flags: 0 }),
    (r) => r.ifaces,
    { ids: (d, source) => ({ domain: dom(d), source }), result: (ifs) => ({ addresses: ifs.flatMap((i) => i.addrs.map((a) => a.addr)).join(",") || "none" }) },
  ),
};
