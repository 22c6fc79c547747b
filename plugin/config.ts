// The kvm provider's configuration: the fields of a Host (object-types.ts), set as stack
// config (`kvm:address`, `kvm:privateKeyPath`, …) for the default provider or as the inputs
// of an explicit one (`new kvm.Provider("hv2", { address })`). Stack config arrives as
// strings, an explicit provider's inputs typed; both are read by the Host field's type.
// A resource without a host of its own is on its provider's host.
import { SHARED_TYPES } from "../provider/resources/object-types";
import { checkHostInput } from "../provider/resources/host-inputs";
import { deepEqual } from "../provider/resources/deep-equal";
import { Failures } from "../provider/resources/input-checks";
import { isUnknown } from "../provider/resources/unknown";
import type { HostConfig } from "../provider/ssh/host";

type Values = Record<string, unknown>;

/** The settings of the provider: the Host's fields, with their declared types. */
export const SETTINGS = SHARED_TYPES.Host.fields;

/** What the engine adds to every provider's inputs; not settings of ours. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** A setting's value as its declared type: stack config gives "2222" and "false". */
function typed(type: string, v: unknown): unknown {
  if (typeof v !== "string" || isUnknown(v)) return v;
  if (type === "integer" || type === "number") return v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : v;
  if (type === "boolean" || type === "boolean | string") return v === "true" ? true : v === "false" ? false : v;
  return v;
}

/** The name of a setting as a ConfigureRequest's variables give it ("kvm:config:address"), or as it is. */
const settingName = (key: string) => key.replace(/^kvm:(config:)?/, "");

/**
 * The provider's host from its configuration, and what is wrong with it: every key named as
 * the user sets it (`kvm:port`), with the fix. No address and nothing else: no host (each
 * resource then needs its own).
 */
export function providerHost(config: Values): { host?: HostConfig; failures: Failures } {
  const failures: Failures = [];
  const values: Values = {};
  for (const [key, v] of Object.entries(config)) {
    const name = settingName(key);
    if (ENGINE_KEYS.has(name) || v === undefined || v === null) continue;
    if (!(name in SETTINGS)) {
      failures.push({
        property: name,
        reason: `kvm:${name} is not a setting of the kvm provider; its settings are ${Object.keys(SETTINGS)
          .map((k) => `kvm:${k}`)
          .join(", ")} (docs/connection.md)`,
      });
      continue;
    }
    values[name] = typed(SETTINGS[name].type, v);
  }
  if (!Object.keys(values).length) return { failures };
  if (values.address === undefined) {
    failures.push({
      property: "address",
      reason: "kvm:address is required once any kvm: setting is given: pulumi config set kvm:address HOST (or the provider's address input)",
    });
    return { failures };
  }
  const hostFailures: Failures = [];
  const host = checkHostInput(hostFailures, values);
  // checkHostInput names "host.port": here it is the provider's kvm:port
  for (const f of hostFailures) {
    const name = f.property.replace(/^host\./, "");
    failures.push({ property: name, reason: f.reason.replace(/^host\.(\w+)/, "kvm:$1") });
  }
  return failures.length ? { failures } : { host, failures };
}

/** The settings that differ between two configurations (each compared as its type reads it). */
export function changedSettings(olds: Values, news: Values): string[] {
  const read = (c: Values) =>
    Object.fromEntries(
      Object.entries(c).map(([k, v]) => {
        const name = settingName(k);
        return [name, name in SETTINGS ? typed(SETTINGS[name].type, v) : v];
      }),
    );
  const [o, n] = [read(olds), read(news)];
  return [...new Set([...Object.keys(o), ...Object.keys(n)])].filter((k) => !ENGINE_KEYS.has(k) && !deepEqual(o[k], n[k])).sort();
}

/** The host a resource acts on: its own where it has one, else its provider's; the failure when neither is there. */
export function hostOfResource(own: unknown, provider: HostConfig | undefined, kind: string): { host?: unknown; failure?: string } {
  if (own !== undefined && own !== null) return { host: own };
  if (provider) return { host: provider };
  return {
    failure: `host: this ${kind} has no host and its provider no configuration: set the default provider's (pulumi config set kvm:address HOST, kvm:user, kvm:privateKeyPath; docs/connection.md), pass an explicit kvm.Provider, or give the resource a host`,
  };
}
