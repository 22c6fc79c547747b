import type { KindModule } from "../../resources/kind";
import { volumeDeclaration, VolumeInputs, VolumeOutputs } from "./declaration";
import { volumeProvider } from "./lifecycle";
import { volumeRecord } from "./record";

export const volumeKind: KindModule<VolumeInputs, VolumeOutputs> = { declaration: volumeDeclaration, provider: volumeProvider, record: volumeRecord };
