// Secrets on the provider protocol's wire: inputs may arrive wrapped as secrets; an output
// goes back wrapped when its input came as one or its declaration says it is secret.
import type { Kind } from "../provider/kinds";
import { DECLARATIONS, OBJECT_TYPES } from "../provider/kinds";
import { carriesSecret, Field } from "../provider/resources/object-types";
import { Property } from "../provider/resources/properties";
import { reveal, secretOf } from "../provider/pulumi-secrets";

type Props = Record<string, unknown>;

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
      const hidden = secret.has(k) || (p !== undefined && v !== undefined && v !== null && (p.secret || carriesSecret(p.type, v, OBJECT_TYPES)));
      return [k, hidden ? secretOf(v) : v];
    }),
  );
}

/** `props` (an object type's fields: the provider's settings) with those named and those declared secret wrapped. */
export function wrapSecretFields(fields: Record<string, Field>, props: Props, secret: Set<string>): Props {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, secret.has(k) || (fields[k]?.secret && v !== undefined) ? secretOf(v) : v]));
}
