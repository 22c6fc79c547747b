import type { KindModule } from "../../resources/kind";
import { uuidText } from "../../uuid";
import { activity, theRecorded } from "../../resources/stack-record";
import { networkDeclaration, NetworkInputs, NetworkOutputs } from "./declaration";
import { networkProvider } from "./lifecycle";

export const networkKind: KindModule<NetworkInputs, NetworkOutputs> = {
  declaration: networkDeclaration,
  provider: networkProvider,
  record: {
    read: (o) => ({ running: o.active, uuid: o.uuid }),
    onHost: async (lv, r) => activity(await lv.networkIsActive(await theRecorded(r, lv.lookupNetwork(r.name)))),
  },
  discovery: {
    list: async (lv) => (await lv.listNetworks()).map((n) => ({ id: uuidText(n.uuid), name: n.name, label: `network ${n.name}` })),
  },
};
