// The libvirt calls on networks and network filters (nwfilter: firewall rules libvirt applies
// to the NICs that name them): rows of the call table (calls.ts).
import { array, Infer, int, struct, uint } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { dhcpLease, networkRef, nonnullString, remoteString, uuid } from "../rpc/types";
import type { NetworkRef } from "../rpc/types";
import { flags, hex, LIST_MAX, net, none, nothing, read, write } from "./call-rows";

/** remote_nonnull_nwfilter */
const networkFilterRef = struct({ name: nonnullString, uuid });
export type NetworkFilterRef = Infer<typeof networkFilterRef>;

const filter = (f: NetworkFilterRef) => f.name;

export const networkCalls = {
  // networks
  lookupNetwork: read(
    procedure(46, "virNetworkLookupByName", struct({ name: nonnullString }), struct({ net: networkRef })),
    (name: string) => ({ name }),
    (r) => r.net,
    { ids: (name) => ({ network: name }) },
  ),
  listNetworks: read(
    procedure(283, "virConnectListAllNetworks", struct({ needResults: int, flags }), struct({ nets: array(networkRef, LIST_MAX), ret: uint })),
    () => ({ needResults: 1, flags: 0 }),
    (r) => r.nets,
    { ids: () => ({}), result: (n) => ({ count: n.length }) },
  ),
  lookupNetworkByUuid: read(
    procedure(47, "virNetworkLookupByUUID", struct({ uuid }), struct({ net: networkRef })),
    (u: Buffer) => ({ uuid: u }),
    (r) => r.net,
    { ids: (u) => ({ uuid: hex(u) }), result: (n) => ({ network: n.name }) },
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
  // network filters
  lookupNetworkFilter: read(
    procedure(175, "virNWFilterLookupByName", struct({ name: nonnullString }), struct({ nwfilter: networkFilterRef })),
    (name: string) => ({ name }),
    (r) => r.nwfilter,
    { ids: (name) => ({ filter: name }) },
  ),
  lookupNetworkFilterByUuid: read(
    procedure(176, "virNWFilterLookupByUUID", struct({ uuid }), struct({ nwfilter: networkFilterRef })),
    (u: Buffer) => ({ uuid: u }),
    (r) => r.nwfilter,
    { ids: (u) => ({ uuid: hex(u) }), result: (f) => ({ filter: f.name }) },
  ),
  networkFilterXml: read(
    procedure(177, "virNWFilterGetXMLDesc", struct({ nwfilter: networkFilterRef, flags }), struct({ xml: nonnullString })),
    (f: NetworkFilterRef) => ({ nwfilter: f, flags: 0 }),
    (r) => r.xml,
    { ids: (f) => ({ filter: filter(f) }), xml: (_a, x) => x },
  ),
  // a filter defined again under its name and UUID is updated: libvirt applies the new rules to the running NICs
  defineNetworkFilter: write(
    procedure(180, "virNWFilterDefineXML", struct({ xml: nonnullString }), struct({ nwfilter: networkFilterRef })),
    (xml: string) => ({ xml }),
    (r) => r.nwfilter,
    { ids: () => ({}), result: (f) => ({ filter: f.name, uuid: hex(f.uuid) }), xml: ([x]) => x },
  ),
  undefineNetworkFilter: write(
    procedure(181, "virNWFilterUndefine", struct({ nwfilter: networkFilterRef }), none),
    (f: NetworkFilterRef) => ({ nwfilter: f }),
    nothing,
    { ids: (f) => ({ filter: filter(f) }) },
  ),
};
