// Secrets on the provider protocol's wire: inputs may arrive wrapped as secrets; an output
// goes back wrapped when its input came as one or its declaration says it is secret.
import type { Kind } from "../provider/kinds";
import { DECLARATIONS } from "../provider/resources/declarations";
import { carriesSecret, Field } from "../provider/resources/object-types";
import { Property } from "../provider/resources/properties";

/** Pulumi's marker of a secret value on the wire (sdk/go/common/resource/sig). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;

const isSecret = (v: unknown): v is { value: unknown } => !!v && typeof v === "object" && (v as Props)[SECRET_SIG] === SECRET_VALUE;
const secretOf = (v: unknown) => ({ [SECRET_SIG]: SECRET_VALUE, value: v });

/** A value without secret wrappers, and whether it held one. */
function reveal(v: unknown): { value: unknown; secret: boolean } {
  if (isSecret(v)) return { value: reveal(v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(reveal);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => [k, reveal(x)] as const);
    return { value: Object.fromEntries(entries.map(([k, x]) => [k, x.value])), secret: entries.some(([, x]) => x.secret) };
  }
  return { value: v, secret: false };
}

/** Properties without secret wrappers, and the names of those that held one. */
export function unwrapSecrets(props: Props | undefined): { props: Props; secret: Set<string> } {
  const secret = new Set<string>();
  const out: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    const r = reveal(v);
    out[k] = r.value;
    if (r.secret) secret.add(k);
  }
  return { props: out, secret };
}

/** `props` with each secret one wrapped: those named, and those the kind declares secret (or secret by their value). */
export function wrapSecrets(kind: Kind, props: Props, secret: Set<string>): Props {
  const declared = DECLARATIONS[kind].properties as Record<string, Property<unknown, unknown>>;
  return Object.fromEntries(
    Object.entries(props).map(([k, v]) => {
      const p = declared[k];
      const hidden = secret.has(k) || (p !== undefined && v !== undefined && v !== null && (p.secret || carriesSecret(p.type, v)));
      return [k, hidden ? secretOf(v) : v];
    }),
  );
}

/** `props` (an object type's fields: the provider's settings) with those named and those declared secret wrapped. */
export function wrapSecretFields(fields: Record<string, Field>, props: Props, secret: Set<string>): Props {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, secret.has(k) || (fields[k]?.secret && v !== undefined) ? secretOf(v) : v]));
}
