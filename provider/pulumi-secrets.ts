// Pulumi's secret values as they travel: wrapped under a signature key on the provider
// protocol's wire (the value beside it) and in a stack export (the plaintext JSON beside it,
// with --show-secrets). One reader for both, for the plugin and the CLI.

/** Pulumi's marker of a secret value (sdk/go/common/resource/sig). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;

const isSecret = (v: unknown): v is { value?: unknown; plaintext?: string } => !!v && typeof v === "object" && (v as Props)[SECRET_SIG] === SECRET_VALUE;

/** A secret as the wire carries it. */
export const secretOf = (v: unknown) => ({ [SECRET_SIG]: SECRET_VALUE, value: v });

/** A value without secret wrappers, and whether it held one. */
export function reveal(v: unknown): { value: unknown; secret: boolean } {
  if (isSecret(v)) return { value: reveal(typeof v.plaintext === "string" ? JSON.parse(v.plaintext) : v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(reveal);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Props).map(([k, x]) => [k, reveal(x)] as const);
    return { value: Object.fromEntries(entries.map(([k, x]) => [k, x.value])), secret: entries.some(([, x]) => x.secret) };
  }
  return { value: v, secret: false };
}
