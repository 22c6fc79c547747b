import type { KindModule } from "../../resources/kind";
import { volumeRecord } from "../volume/record";
import { imageDeclaration, ImageInputs, ImageOutputs } from "./declaration";
import { imageProvider } from "./lifecycle";

export const imageKind: KindModule<ImageInputs, ImageOutputs> = { declaration: imageDeclaration, provider: imageProvider, record: volumeRecord };
