import type { KindModule } from "../../resources/kind";
import { uuidText } from "../../uuid";
import { activity, theRecorded } from "../../resources/stack-record";
import { storagePoolDeclaration, StoragePoolInputs, StoragePoolOutputs } from "./declaration";
import { storagePoolProvider } from "./lifecycle";

export const storagePoolKind: KindModule<StoragePoolInputs, StoragePoolOutputs> = {
  declaration: storagePoolDeclaration,
  provider: storagePoolProvider,
  record: {
    read: (o) => ({ pool: o.name, running: o.state === "running", uuid: o.uuid }),
    onHost: async (lv, r) => activity(await lv.poolIsActive(await theRecorded(r, lv.lookupPool(r.name)))),
  },
  discovery: {
    list: async (lv) => (await lv.listPools()).map((p) => ({ id: uuidText(p.uuid), name: p.name, label: `storage pool ${p.name}` })),
  },
};
