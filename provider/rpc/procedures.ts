// The libvirt procedures this package speaks: one row each (REMOTE program,
// remote_protocol.x). Numbers are append-only upstream. `api` is the public libvirt
// function the procedure implements; logs and errors use it.
import { array, Codec, int, struct, uhyper, uint, voidCodec } from "./codec";
import {
  dhcpLease, domainInterface, domainRef, networkRef, nonnullString, poolRef, remoteString, uuid, volumeRef,
} from "./types";

export interface Procedure<A, R> {
  proc: number;
  api: string;
  args: Codec<A>;
  ret: Codec<R>;
  /** Calls that open a data stream after their reply. */
  stream?: "upload" | "download";
}

function p<A, R>(proc: number, api: string, args: Codec<A>, ret: Codec<R>, stream?: "upload" | "download"): Procedure<A, R> {
  return { proc, api, args, ret, stream };
}

const none = voidCodec;
const flags = uint;
const LIST_MAX = 16384;

const volTransfer = struct({ vol: volumeRef, offset: uhyper, length: uhyper, flags });

export const procedures = {
  // connection and authentication
  connectOpen: p(1, "virConnectOpen", struct({ name: remoteString, flags }), none),
  connectClose: p(2, "virConnectClose", none, none),
  connectGetVersion: p(4, "virConnectGetVersion", none, struct({ hvVer: uhyper })),
  connectGetHostname: p(59, "virConnectGetHostname", none, struct({ hostname: nonnullString })),
  connectSupportsFeature: p(60, "virConnectSupportsFeature", struct({ feature: int }), struct({ supported: int })),
  authList: p(66, "virConnectAuthList", none, struct({ types: array(int, 20) })),
  authPolkit: p(70, "virConnectAuthPolkit", none, struct({ complete: int })),
  connectGetUri: p(110, "virConnectGetURI", none, struct({ uri: nonnullString })),
  connectGetLibVersion: p(157, "virConnectGetLibVersion", none, struct({ libVer: uhyper })),
  connectListAllDomains: p(273, "virConnectListAllDomains", struct({ needResults: int, flags }),
    struct({ domains: array(domainRef, LIST_MAX), ret: uint })),

  // storage pools
  storagePoolCreate: p(78, "virStoragePoolCreate", struct({ pool: poolRef, flags }), none),
  storagePoolDestroy: p(80, "virStoragePoolDestroy", struct({ pool: poolRef }), none),
  storagePoolRefresh: p(83, "virStoragePoolRefresh", struct({ pool: poolRef, flags }), none),
  storagePoolLookupByName: p(84, "virStoragePoolLookupByName", struct({ name: nonnullString }), struct({ pool: poolRef })),
  storagePoolGetInfo: p(87, "virStoragePoolGetInfo", struct({ pool: poolRef }),
    struct({ state: int, capacity: uhyper, allocation: uhyper, available: uhyper })),
  storagePoolGetXmlDesc: p(88, "virStoragePoolGetXMLDesc", struct({ pool: poolRef, flags }), struct({ xml: nonnullString })),
  storagePoolIsActive: p(154, "virStoragePoolIsActive", struct({ pool: poolRef }), struct({ active: int })),
  storagePoolListAllVolumes: p(282, "virStoragePoolListAllVolumes", struct({ pool: poolRef, needResults: int, flags }),
    struct({ vols: array(volumeRef, LIST_MAX), ret: uint })),

  // storage volumes
  storageVolCreateXml: p(93, "virStorageVolCreateXML", struct({ pool: poolRef, xml: nonnullString, flags }), struct({ vol: volumeRef })),
  storageVolDelete: p(94, "virStorageVolDelete", struct({ vol: volumeRef, flags }), none),
  storageVolLookupByName: p(95, "virStorageVolLookupByName", struct({ pool: poolRef, name: nonnullString }), struct({ vol: volumeRef })),
  storageVolGetInfo: p(98, "virStorageVolGetInfo", struct({ vol: volumeRef }), struct({ type: int, capacity: uhyper, allocation: uhyper })),
  storageVolGetXmlDesc: p(99, "virStorageVolGetXMLDesc", struct({ vol: volumeRef, flags }), struct({ xml: nonnullString })),
  storageVolGetPath: p(100, "virStorageVolGetPath", struct({ vol: volumeRef }), struct({ name: nonnullString })),
  storageVolCreateXmlFrom: p(125, "virStorageVolCreateXMLFrom",
    struct({ pool: poolRef, xml: nonnullString, clonevol: volumeRef, flags }), struct({ vol: volumeRef })),
  storageVolUpload: p(208, "virStorageVolUpload", volTransfer, none, "upload"),
  storageVolDownload: p(209, "virStorageVolDownload", volTransfer, none, "download"),
  storageVolResize: p(260, "virStorageVolResize", struct({ vol: volumeRef, capacity: uhyper, flags }), none),
  storageVolGetInfoFlags: p(378, "virStorageVolGetInfoFlags", struct({ vol: volumeRef, flags }),
    struct({ type: int, capacity: uhyper, allocation: uhyper })),

  // domains
  domainCreate: p(9, "virDomainCreate", struct({ dom: domainRef }), none),
  domainDestroy: p(12, "virDomainDestroy", struct({ dom: domainRef }), none),
  domainGetXmlDesc: p(14, "virDomainGetXMLDesc", struct({ dom: domainRef, flags }), struct({ xml: nonnullString })),
  domainGetAutostart: p(15, "virDomainGetAutostart", struct({ dom: domainRef }), struct({ autostart: int })),
  domainGetInfo: p(16, "virDomainGetInfo", struct({ dom: domainRef }),
    struct({ state: int, maxMem: uhyper, memory: uhyper, nrVirtCpu: int, cpuTime: uhyper })),
  domainLookupByName: p(23, "virDomainLookupByName", struct({ name: nonnullString }), struct({ dom: domainRef })),
  domainLookupByUuid: p(24, "virDomainLookupByUUID", struct({ uuid }), struct({ dom: domainRef })),
  domainSetAutostart: p(29, "virDomainSetAutostart", struct({ dom: domainRef, autostart: int }), none),
  domainShutdown: p(33, "virDomainShutdown", struct({ dom: domainRef }), none),
  domainUndefine: p(35, "virDomainUndefine", struct({ dom: domainRef }), none),
  domainIsActive: p(150, "virDomainIsActive", struct({ dom: domainRef }), struct({ active: int })),
  domainCreateWithFlags: p(196, "virDomainCreateWithFlags", struct({ dom: domainRef, flags }), struct({ dom: domainRef })),
  domainGetState: p(212, "virDomainGetState", struct({ dom: domainRef, flags }), struct({ state: int, reason: int })),
  domainUndefineFlags: p(231, "virDomainUndefineFlags", struct({ dom: domainRef, flags }), none),
  domainDestroyFlags: p(234, "virDomainDestroyFlags", struct({ dom: domainRef, flags }), none),
  domainShutdownFlags: p(258, "virDomainShutdownFlags", struct({ dom: domainRef, flags }), none),
  domainSetMetadata: p(264, "virDomainSetMetadata",
    struct({ dom: domainRef, type: int, metadata: remoteString, key: remoteString, uri: remoteString, flags }), none),
  domainGetMetadata: p(265, "virDomainGetMetadata", struct({ dom: domainRef, type: int, uri: remoteString, flags }),
    struct({ metadata: nonnullString })),
  domainDefineXmlFlags: p(350, "virDomainDefineXMLFlags", struct({ xml: nonnullString, flags }), struct({ dom: domainRef })),
  domainInterfaceAddresses: p(353, "virDomainInterfaceAddresses", struct({ dom: domainRef, source: uint, flags }),
    struct({ ifaces: array(domainInterface, 2048) })),

  // networks
  networkLookupByName: p(46, "virNetworkLookupByName", struct({ name: nonnullString }), struct({ net: networkRef })),
  networkIsActive: p(152, "virNetworkIsActive", struct({ net: networkRef }), struct({ active: int })),
  networkGetXmlDesc: p(43, "virNetworkGetXMLDesc", struct({ net: networkRef, flags }), struct({ xml: nonnullString })),
  networkGetDhcpLeases: p(341, "virNetworkGetDHCPLeases", struct({ net: networkRef, mac: remoteString, needResults: int, flags }),
    struct({ leases: array(dhcpLease, 65536), ret: uint })),
} as const;

export type Procedures = typeof procedures;
export type ProcedureName = keyof Procedures;
export type ArgsOf<N extends ProcedureName> = Procedures[N] extends Procedure<infer A, any> ? A : never;
export type RetOf<N extends ProcedureName> = Procedures[N] extends Procedure<any, infer R> ? R : never;

/** Feature numbers for virConnectSupportsFeature (virDrvFeature). */
export const Feature = { PROGRAM_KEEPALIVE: 10 } as const;
/** remote_auth_type. */
export const AuthType = { NONE: 0, SASL: 1, POLKIT: 2 } as const;
/** virStorageVolUploadFlags. */
export const VOL_UPLOAD_SPARSE_STREAM = 1;
