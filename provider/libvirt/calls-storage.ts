// The libvirt calls on storage pools and volumes: rows of the call table (calls.ts).
import { array, int, struct, uhyper, uint } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { nonnullString, poolRef, uuid, volumeRef } from "../rpc/types";
import type { PoolRef, VolumeRef } from "../rpc/types";
import { flags, hex, LIST_MAX, none, nothing, pool, read, StreamCall, vol, volTransfer, watched, write } from "./call-rows";

export const storageCalls = {
  // storage pools
  lookupPool: read(
    procedure(84, "virStoragePoolLookupByName", struct({ name: nonnullString }), struct({ pool: poolRef })),
    (name: string) => ({ name }),
    (r) => r.pool,
    { ids: (name) => ({ pool: name }), result: (p) => ({ uuid: hex(p.uuid) }) },
  ),
  lookupPoolByUuid: read(
    procedure(85, "virStoragePoolLookupByUUID", struct({ uuid }), struct({ pool: poolRef })),
    (u: Buffer) => ({ uuid: u }),
    (r) => r.pool,
    { ids: (u) => ({ uuid: hex(u) }), result: (p) => ({ pool: p.name }) },
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
  /** A pool that lives until it is stopped, never defined: how a file libvirt keeps outside any pool is reached. */
  createTransientPool: write(
    procedure(76, "virStoragePoolCreateXML", struct({ xml: nonnullString, flags }), struct({ pool: poolRef })),
    (xml: string) => ({ xml, flags: 0 }),
    (r) => r.pool,
    { ids: () => ({}), result: (p) => ({ pool: p.name }), xml: ([x]) => x },
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
  lookupVolumeByKey: read(
    procedure(96, "virStorageVolLookupByKey", struct({ key: nonnullString }), struct({ vol: volumeRef })),
    (key: string) => ({ key }),
    (r) => r.vol,
    { ids: (key) => ({ key }), result: (v) => ({ vol: `${v.pool}/${v.name}` }) },
  ),
  listPools: read(
    procedure(281, "virConnectListAllStoragePools", struct({ needResults: int, flags }), struct({ pools: array(poolRef, LIST_MAX), ret: uint })),
    () => ({ needResults: 1, flags: 0 }),
    (r) => r.pools,
    { ids: () => ({}), result: (p) => ({ count: p.length }) },
  ),
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
};
