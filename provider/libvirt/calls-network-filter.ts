// The libvirt calls on network filters (nwfilter: firewall rules libvirt applies to the
// NICs that name them): rows of the call table (calls.ts).
import { Infer, struct } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { nonnullString, uuid } from "../rpc/types";
import { flags, hex, none, nothing, read, write } from "./call-rows";

/** remote_nonnull_nwfilter */
const networkFilterRef = struct({ name: nonnullString, uuid });
export type NetworkFilterRef = Infer<typeof networkFilterRef>;

const filter = (f: NetworkFilterRef) => f.name;

export const networkFilterCalls = {
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
