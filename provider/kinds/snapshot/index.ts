import type { KindModule } from "../../resources/kind";
import { present } from "../../resources/stack-record";
import { recordedDomainRef } from "../domain/record";
import { snapshotDeclaration, SnapshotInputs, SnapshotOutputs } from "./declaration";
import { snapshotProvider } from "./lifecycle";

export const snapshotKind: KindModule<SnapshotInputs, SnapshotOutputs> = {
  declaration: snapshotDeclaration,
  provider: snapshotProvider,
  record: {
    // identified by its domain's UUID (older records have none)
    read: (o) => ({ domain: o.domain, uuid: o.domainUuid }),
    onHost: async (lv, r) => present(lv.lookupSnapshot(await recordedDomainRef(lv, r.domain!, r.uuid), r.name)),
  },
};
