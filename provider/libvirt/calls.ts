// Every libvirt call pulumi-kvm makes, one row each: the procedure of libvirt's REMOTE
// program (number, public API name, codecs: remote_protocol.x), how the seam method's
// arguments become the call's and its reply the method's result, and what a trace line
// shows. The Libvirt interface (api.ts), its RPC implementation (rpc-libvirt.ts) and
// the tracing decorator (tracing.ts) are all derived from this table: a new call is a
// new row. A row is a `read` or a `write`: after a broken link the pool repeats a read on
// a fresh connection, but never a write that may have reached the host.
import { array, int, struct, uhyper, uint, voidCodec } from "../rpc/codec";
import { Procedure, procedure } from "../rpc/procedure";
import { TransferProgress, VolumeTransfer } from "../rpc/stream";
import { dhcpLease, domainInterface, domainRef, networkRef, nonnullString, poolRef, remoteString, uuid, volumeRef } from "../rpc/types";
import type { DomainRef, NetworkRef, PoolRef, VolumeRef } from "../rpc/types";

type Fields = Record<string, unknown>;

/** What a trace line shows of a call: identifiers, curated results, XML at level 2. Never bodies or secrets. */
export interface Trace<P extends unknown[], T> {
  ids(...args: P): Fields;
  result?(ret: T): Fields;
  xml?(args: P, ret: T): string | undefined;
}

/** A unary call: seam arguments → procedure arguments → reply → seam result. */
export interface Call<P extends unknown[], A, R, T> {
  kind: "call";
  /** Changes something on the host (a repeat after a lost reply could do it twice). */
  mutates: boolean;
  proc: Procedure<A, R>;
  args(...p: P): A;
  ret(r: R): T;
  trace: Trace<P, T>;
  /** Takes as long as the data it moves: its caller bounds it by progress (a signal), not the flat call bound. */
  watched?: boolean;
}

/** A call that opens a data stream (virStorageVolUpload / virStorageVolDownload). */
export interface StreamCall<K extends "upload" | "download"> {
  kind: K;
  proc: Procedure<VolumeTransfer, void>;
  trace: Trace<[VolumeRef, ...unknown[]], K extends "upload" ? TransferProgress : { bytes: number }>;
}

function read<P extends unknown[], A, R, T>(proc: Procedure<A, R>, args: (...p: P) => A, ret: (r: R) => T, trace: Trace<P, T>): Call<P, A, R, T> {
  return { kind: "call", mutates: false, proc, args, ret, trace };
}

function write<P extends unknown[], A, R, T>(proc: Procedure<A, R>, args: (...p: P) => A, ret: (r: R) => T, trace: Trace<P, T>): Call<P, A, R, T> {
  return { kind: "call", mutates: true, proc, args, ret, trace };
}

/** A row whose call takes as long as the data it moves (see Call.watched). */
function watched<P extends unknown[], A, R, T>(call: Call<P, A, R, T>): Call<P, A, R, T> {
  return { ...call, watched: true };
}

/** virDomainMetadataType */
export const MetadataType = { DESCRIPTION: 0, TITLE: 1, ELEMENT: 2 } as const;
/** virDomainModificationImpact */
export const Impact = { CURRENT: 0, LIVE: 1, CONFIG: 2 } as const;

const none = voidCodec;
const flags = uint;
const LIST_MAX = 16384;
const volTransfer = struct({ vol: volumeRef, offset: uhyper, length: uhyper, flags });
const noArgs = () => undefined;
/** virDomainBlockResizeFlags: the size is in bytes, not KiB */
const BLOCK_RESIZE_BYTES = 1;
const nothing = () => undefined;

const pool = (p: PoolRef) => p.name;
const vol = (v: VolumeRef) => `${v.pool}/${v.name}`;
const dom = (d: DomainRef) => d.name;
const net = (n: NetworkRef) => n.name;
const hex = (b: Buffer) => b.toString("hex");

export const calls = {
  // the daemon
  libVersion: read(procedure(157, "virConnectGetLibVersion", none, struct({ libVer: uhyper })), noArgs, (r) => r.libVer, {
    ids: () => ({}),
    result: (v) => ({ version: v }),
  }),
  hostname: read(procedure(59, "virConnectGetHostname", none, struct({ hostname: nonnullString })), noArgs, (r) => r.hostname, {
    ids: () => ({}),
    result: (h) => ({ hostname: h }),
  }),

  // storage pools
  lookupPool: read(
    procedure(84, "virStoragePoolLookupByName", struct({ name: nonnullString }), struct({ pool: poolRef })),
    (name: string) => ({ name }),
    (r) => r.pool,
    { ids: (name) => ({ pool: name }), result: (p) => ({ uuid: hex(p.uuid) }) },
  ),
  poolInfo: read(
    procedure(87, "virStoragePoolGetInfo", struct({ pool: poolRef }), struct({ state: int, capacity: uhyper, allocation: uhyper, available: uhyper })),
    (p: PoolRef) => ({ pool: p }),
    (r) => r,
    { ids: (p) => ({ pool: pool(p) }), result: (i) => ({ state: i.state, available: i.available }) },
  ),
  poolXml: read(
    procedure(88, "virStoragePoolGetXMLDesc", struct({ pool: poolRef, flags }), struct({ xml: nonnullString })),
    (p: PoolRef) => ({ pool: p, flags: 0 }),
    (r) => r.xml,
    { ids: (p) => ({ pool: pool(p) }), xml: (_a, x) => x },
  ),
  listVolumes: read(
    procedure(282, "virStoragePoolListAllVolumes", struct({ pool: poolRef, needResults: int, flags }), struct({ vols: array(volumeRef, LIST_MAX), ret: uint })),
    (p: PoolRef) => ({ pool: p, needResults: 1, flags: 0 }),
    (r) => r.vols,
    { ids: (p) => ({ pool: pool(p) }), result: (v) => ({ count: v.length }) },
  ),
  poolIsActive: read(
    procedure(154, "virStoragePoolIsActive", struct({ pool: poolRef }), struct({ active: int })),
    (p: PoolRef) => ({ pool: p }),
    (r) => r.active === 1,
    { ids: (p) => ({ pool: pool(p) }), result: (a) => ({ active: a }) },
  ),
  poolAutostart: read(
    procedure(89, "virStoragePoolGetAutostart", struct({ pool: poolRef }), struct({ autostart: int })),
    (p: PoolRef) => ({ pool: p }),
    (r) => r.autostart === 1,
    { ids: (p) => ({ pool: pool(p) }), result: (a) => ({ autostart: a }) },
  ),
  definePool: write(
    procedure(77, "virStoragePoolDefineXML", struct({ xml: nonnullString, flags }), struct({ pool: poolRef })),
    (xml: string) => ({ xml, flags: 0 }),
    (r) => r.pool,
    { ids: () => ({}), result: (p) => ({ pool: p.name, uuid: hex(p.uuid) }), xml: ([x]) => x },
  ),
  buildPool: write(procedure(79, "virStoragePoolBuild", struct({ pool: poolRef, flags }), none), (p: PoolRef) => ({ pool: p, flags: 0 }), nothing, {
    ids: (p) => ({ pool: pool(p) }),
  }),
  startPool: write(procedure(78, "virStoragePoolCreate", struct({ pool: poolRef, flags }), none), (p: PoolRef) => ({ pool: p, flags: 0 }), nothing, {
    ids: (p) => ({ pool: pool(p) }),
  }),
  stopPool: write(procedure(80, "virStoragePoolDestroy", struct({ pool: poolRef }), none), (p: PoolRef) => ({ pool: p }), nothing, {
    ids: (p) => ({ pool: pool(p) }),
  }),
  /** Removes the pool's directory (which must be empty) from the host. */
  deletePoolStorage: write(procedure(81, "virStoragePoolDelete", struct({ pool: poolRef, flags }), none), (p: PoolRef) => ({ pool: p, flags: 0 }), nothing, {
    ids: (p) => ({ pool: pool(p) }),
  }),
  undefinePool: write(procedure(82, "virStoragePoolUndefine", struct({ pool: poolRef }), none), (p: PoolRef) => ({ pool: p }), nothing, {
    ids: (p) => ({ pool: pool(p) }),
  }),
  setPoolAutostart: write(
    procedure(90, "virStoragePoolSetAutostart", struct({ pool: poolRef, autostart: int }), none),
    (p: PoolRef, autostart: boolean) => ({ pool: p, autostart: autostart ? 1 : 0 }),
    nothing,
    { ids: (p, a) => ({ pool: pool(p), autostart: a }) },
  ),

  // storage volumes
  lookupVolume: read(
    procedure(95, "virStorageVolLookupByName", struct({ pool: poolRef, name: nonnullString }), struct({ vol: volumeRef })),
    (p: PoolRef, name: string) => ({ pool: p, name }),
    (r) => r.vol,
    { ids: (p, name) => ({ vol: `${pool(p)}/${name}` }), result: (v) => ({ key: v.key }) },
  ),
  volumeInfo: read(
    procedure(98, "virStorageVolGetInfo", struct({ vol: volumeRef }), struct({ type: int, capacity: uhyper, allocation: uhyper })),
    (v: VolumeRef) => ({ vol: v }),
    (r) => r,
    { ids: (v) => ({ vol: vol(v) }), result: (i) => ({ capacity: i.capacity, allocation: i.allocation }) },
  ),
  volumeXml: read(
    procedure(99, "virStorageVolGetXMLDesc", struct({ vol: volumeRef, flags }), struct({ xml: nonnullString })),
    (v: VolumeRef) => ({ vol: v, flags: 0 }),
    (r) => r.xml,
    { ids: (v) => ({ vol: vol(v) }), xml: (_a, x) => x },
  ),
  volumePath: read(
    procedure(100, "virStorageVolGetPath", struct({ vol: volumeRef }), struct({ name: nonnullString })),
    (v: VolumeRef) => ({ vol: v }),
    (r) => r.name,
    { ids: (v) => ({ vol: vol(v) }), result: (p) => ({ path: p }) },
  ),
  createVolume: write(
    procedure(93, "virStorageVolCreateXML", struct({ pool: poolRef, xml: nonnullString, flags }), struct({ vol: volumeRef })),
    (p: PoolRef, xml: string) => ({ pool: p, xml, flags: 0 }),
    (r) => r.vol,
    { ids: (p) => ({ pool: pool(p) }), result: (v) => ({ vol: vol(v) }), xml: ([, x]) => x },
  ),
  /** A new volume whose content libvirt copies from `source` on the host (a full copy, not an overlay). */
  cloneVolume: watched(
    write(
      procedure(125, "virStorageVolCreateXMLFrom", struct({ pool: poolRef, xml: nonnullString, clonevol: volumeRef, flags }), struct({ vol: volumeRef })),
      (p: PoolRef, xml: string, source: VolumeRef) => ({ pool: p, xml, clonevol: source, flags: 0 }),
      (r) => r.vol,
      { ids: (p, _x, source) => ({ pool: pool(p), from: vol(source) }), result: (v) => ({ vol: vol(v) }), xml: ([, x]) => x },
    ),
  ),
  deleteVolume: write(procedure(94, "virStorageVolDelete", struct({ vol: volumeRef, flags }), none), (v: VolumeRef) => ({ vol: v, flags: 0 }), nothing, {
    ids: (v) => ({ vol: vol(v) }),
  }),
  resizeVolume: write(
    procedure(260, "virStorageVolResize", struct({ vol: volumeRef, capacity: uhyper, flags }), none),
    (v: VolumeRef, capacity: bigint, f: number) => ({ vol: v, capacity, flags: f }),
    nothing,
    { ids: (v, capacity, f) => ({ vol: vol(v), capacity, flags: f }) },
  ),
  uploadVolume: {
    kind: "upload",
    proc: procedure(208, "virStorageVolUpload", volTransfer, none),
    trace: {
      ids: (v, _source, o) => ({ vol: vol(v), sparse: !!(o as { sparse?: boolean } | undefined)?.sparse }),
      result: (p) => ({ covered: p.covered, sent: p.sent }),
    },
  } as StreamCall<"upload">,
  downloadVolume: {
    kind: "download",
    proc: procedure(209, "virStorageVolDownload", volTransfer, none),
    trace: { ids: (v) => ({ vol: vol(v) }), result: (d) => ({ bytes: d.bytes }) },
  } as StreamCall<"download">,

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
    (d: DomainRef) => ({ dom: d, flags: 0 }),
    (r) => r.dom,
    { ids: (d) => ({ domain: dom(d) }), result: (d) => ({ id: d.id }) },
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
  interfaceAddresses: read(
    procedure(353, "virDomainInterfaceAddresses", struct({ dom: domainRef, source: uint, flags }), struct({ ifaces: array(domainInterface, 2048) })),
    (d: DomainRef, source: number) => ({ dom: d, source, flags: 0 }),
    (r) => r.ifaces,
    { ids: (d, source) => ({ domain: dom(d), source }), result: (ifs) => ({ addresses: ifs.flatMap((i) => i.addrs.map((a) => a.addr)).join(",") || "none" }) },
  ),

  // networks
  lookupNetwork: read(
    procedure(46, "virNetworkLookupByName", struct({ name: nonnullString }), struct({ net: networkRef })),
    (name: string) => ({ name }),
    (r) => r.net,
    { ids: (name) => ({ network: name }) },
  ),
  networkXml: read(
    procedure(43, "virNetworkGetXMLDesc", struct({ net: networkRef, flags }), struct({ xml: nonnullString })),
    (n: NetworkRef) => ({ net: n, flags: 0 }),
    (r) => r.xml,
    { ids: (n) => ({ network: net(n) }), xml: (_a, x) => x },
  ),
  networkAutostart: read(
    procedure(44, "virNetworkGetAutostart", struct({ net: networkRef }), struct({ autostart: int })),
    (n: NetworkRef) => ({ net: n }),
    (r) => r.autostart === 1,
    { ids: (n) => ({ network: net(n) }), result: (a) => ({ autostart: a }) },
  ),
  defineNetwork: write(
    procedure(41, "virNetworkDefineXML", struct({ xml: nonnullString }), struct({ net: networkRef })),
    (xml: string) => ({ xml }),
    (r) => r.net,
    { ids: () => ({}), result: (n) => ({ network: n.name, uuid: hex(n.uuid) }), xml: ([x]) => x },
  ),
  startNetwork: write(procedure(39, "virNetworkCreate", struct({ net: networkRef }), none), (n: NetworkRef) => ({ net: n }), nothing, {
    ids: (n) => ({ network: net(n) }),
  }),
  stopNetwork: write(procedure(42, "virNetworkDestroy", struct({ net: networkRef }), none), (n: NetworkRef) => ({ net: n }), nothing, {
    ids: (n) => ({ network: net(n) }),
  }),
  undefineNetwork: write(procedure(49, "virNetworkUndefine", struct({ net: networkRef }), none), (n: NetworkRef) => ({ net: n }), nothing, {
    ids: (n) => ({ network: net(n) }),
  }),
  setNetworkAutostart: write(
    procedure(48, "virNetworkSetAutostart", struct({ net: networkRef, autostart: int }), none),
    (n: NetworkRef, autostart: boolean) => ({ net: n, autostart: autostart ? 1 : 0 }),
    nothing,
    { ids: (n, a) => ({ network: net(n), autostart: a }) },
  ),
  /** One change to one section of a network, live and in its persistent config (virNetworkUpdate). */
  updateNetwork: write(
    procedure(291, "virNetworkUpdate", struct({ net: networkRef, command: uint, section: uint, parentIndex: int, xml: nonnullString, flags }), none),
    (n: NetworkRef, command: number, section: number, xml: string, f: number) => ({ net: n, command, section, parentIndex: -1, xml, flags: f }),
    nothing,
    { ids: (n, command, section, _x, f) => ({ network: net(n), command, section, flags: f }), xml: ([, , , x]) => x },
  ),
  networkIsActive: read(
    procedure(152, "virNetworkIsActive", struct({ net: networkRef }), struct({ active: int })),
    (n: NetworkRef) => ({ net: n }),
    (r) => r.active === 1,
    { ids: (n) => ({ network: net(n) }), result: (a) => ({ active: a }) },
  ),
  dhcpLeases: read(
    procedure(
      341,
      "virNetworkGetDHCPLeases",
      struct({ net: networkRef, mac: remoteString, needResults: int, flags }),
      struct({ leases: array(dhcpLease, 65536), ret: uint }),
    ),
    (n: NetworkRef, mac: string | null) => ({ net: n, mac, needResults: 1, flags: 0 }),
    (r) => r.leases,
    { ids: (n, mac) => ({ network: net(n), mac: mac ?? "any" }), result: (l) => ({ count: l.length }) },
  ),
};

export type Calls = typeof calls;
