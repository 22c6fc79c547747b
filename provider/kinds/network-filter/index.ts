import type { KindModule } from "../../resources/kind";
import { present, theRecorded } from "../../resources/stack-record";
import { networkFilterDeclaration, NetworkFilterInputs, NetworkFilterOutputs } from "./declaration";
import { networkFilterProvider } from "./lifecycle";

export const networkFilterKind: KindModule<NetworkFilterInputs, NetworkFilterOutputs> = {
  declaration: networkFilterDeclaration,
  provider: networkFilterProvider,
  record: {
    read: (o) => ({ uuid: o.uuid }),
    onHost: (lv, r) => present(theRecorded(r, lv.lookupNetworkFilter(r.name))),
  },
};
