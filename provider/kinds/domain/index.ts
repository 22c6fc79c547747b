import type { KindModule } from "../../resources/kind";
import { domainDeclaration } from "./declaration";
import { domainProvider } from "./lifecycle";
import { domainRecord } from "./record";
import type { DomainInputs, DomainOutputs } from "./types";

export const domainKind: KindModule<DomainInputs, DomainOutputs> = { declaration: domainDeclaration, provider: domainProvider, record: domainRecord };
