// The libvirt calls on domain snapshots: rows of the call table (calls.ts).
import { array, int, struct } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { domainRef, nonnullString, snapshotRef } from "../rpc/types";
import type { DomainRef, SnapshotRef } from "../rpc/types";
import { dom, flags, LIST_MAX, none, nothing, read, write } from "./call-rows";

const snap = (s: SnapshotRef) => `${s.dom.name}/${s.name}`;

export const snapshotCalls = {
  createSnapshot: write(
    procedure(185, "virDomainSnapshotCreateXML", struct({ dom: domainRef, xml: nonnullString, flags }), struct({ snap: snapshotRef })),
    (d: DomainRef, xml: string, f: number) => ({ dom: d, xml, flags: f }),
    (r) => r.snap,
    { ids: (d, _x, f) => ({ domain: dom(d), flags: f }), result: (s) => ({ snapshot: s.name }), xml: ([, x]) => x },
  ),
  snapshotXml: read(
    procedure(186, "virDomainSnapshotGetXMLDesc", struct({ snap: snapshotRef, flags }), struct({ xml: nonnullString })),
    (s: SnapshotRef) => ({ snap: s, flags: 0 }),
    (r) => r.xml,
    { ids: (s) => ({ snapshot: snap(s) }), xml: (_a, x) => x },
  ),
  lookupSnapshot: read(
    procedure(189, "virDomainSnapshotLookupByName", struct({ dom: domainRef, name: nonnullString, flags }), struct({ snap: snapshotRef })),
    (d: DomainRef, name: string) => ({ dom: d, name, flags: 0 }),
    (r) => r.snap,
    { ids: (d, name) => ({ snapshot: `${dom(d)}/${name}` }) },
  ),
  revertSnapshot: write(
    procedure(192, "virDomainRevertToSnapshot", struct({ snap: snapshotRef, flags }), none),
    (s: SnapshotRef, f: number) => ({ snap: s, flags: f }),
    nothing,
    { ids: (s, f) => ({ snapshot: snap(s), flags: f }) },
  ),
  deleteSnapshot: write(
    procedure(193, "virDomainSnapshotDelete", struct({ snap: snapshotRef, flags }), none),
    (s: SnapshotRef) => ({ snap: s, flags: 0 }),
    nothing,
    {
      ids: (s) => ({ snapshot: snap(s) }),
    },
  ),
  listSnapshots: read(
    procedure(
      274,
      "virDomainListAllSnapshots",
      struct({ dom: domainRef, needResults: int, flags }),
      struct({ snapshots: array(snapshotRef, LIST_MAX), ret: int }),
    ),
    (d: DomainRef) => ({ dom: d, needResults: 1, flags: 0 }),
    (r) => r.snapshots,
    { ids: (d) => ({ domain: dom(d) }), result: (s) => ({ count: s.length }) },
  ),
};
