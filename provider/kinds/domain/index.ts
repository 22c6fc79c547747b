import type { KindModule } from "../../resources/kind";
import { uuidText } from "../../uuid";
import { domainDeclaration } from "./declaration";
import { domainProvider } from "./lifecycle";
import { domainRecord } from "./record";
import type { DomainInputs, DomainOutputs } from "./types";

export const domainKind: KindModule<DomainInputs, DomainOutputs> = {
  declaration: domainDeclaration,
  provider: domainProvider,
  record: domainRecord,
  discovery: {
    list: async (lv) => (await lv.listDomains()).map((d) => ({ id: uuidText(d.uuid), name: d.name, label: `domain ${d.name}` })),
    names: ["Volume", "Network"],
    references: (i) => [
      ...(i.disks ?? []).filter((d) => d.volume).map((d) => ({ kind: "Volume", name: d.volume, place: d.pool })),
      ...(i.networkInterfaces ?? []).filter((n) => n.network).map((n) => ({ kind: "Network", name: n.network })),
    ],
    // a disk on a volume of the program is that kvm.Volume: the SDK brings its recorded base and identity
    inProgram: (i, variable) =>
      Array.isArray(i.disks)
        ? {
            ...i,
            disks: i.disks.map((d) => ({ ...d, volume: (d.volume !== undefined && variable({ kind: "Volume", name: d.volume, place: d.pool })) || d.volume })),
          }
        : i,
  },
};
