// What the check of every kind named on its host starts with, derived from its declaration:
// the declared defaults, the name (else the resource's), the host, the name's form, and each
// declared boolean. For a pool, a network or a filter, the whole check: then the host's
// health and the names other resources of the stack claim.
import type { HostConfig } from "../ssh/host";
import { checkNames, Claims } from "./collisions";
import type { ResourceContext } from "./context";
import { checkHostHealth, planObject } from "./host-check";
import type { CheckResult } from "./types";
import { checkHostInput } from "./host-inputs";
import { checkBoolean, checkName, Failures } from "./input-checks";
import { Declaration, withDefaults } from "./properties";

export interface NamedInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
}

/** What each such kind's inputs' check starts with (Image, Volume and Domain too). */
export function checkNamedInputs<I extends NamedInputs, O>(failures: Failures, declaration: Declaration<I, O>, news: I): I {
  const inputs: I = { ...withDefaults(declaration, news), name: news.name ?? news.resourceName ?? "" };
  inputs.host = checkHostInput(failures, news.host) as HostConfig;
  checkName(failures, "name", inputs.name);
  for (const [property, p] of Object.entries(declaration.properties) as [keyof I & string, { type: string }][])
    if (p.type === "boolean") checkBoolean(failures, property, news[property]);
  return inputs;
}

/** The whole check; a pool or a network is planned, so the checks of what uses it in the same preview find it. */
export function namedObjectCheck<I extends NamedInputs, O extends NamedInputs>(
  ctx: ResourceContext,
  checkInputs: (failures: Failures, news: I) => I,
  claimsOf: (i: Pick<I, "host" | "name">) => Claims,
  planned?: "pool" | "network",
): (olds: O | undefined, news: I) => Promise<CheckResult<I>> {
  return async (olds, news) => {
    const failures: Failures = [];
    const inputs = checkInputs(failures, news);
    // only reachability: the object itself is what this resource makes
    await checkHostHealth(ctx, failures, inputs.host, undefined);
    await checkNames(ctx.pool, failures, claimsOf, inputs, olds);
    if (planned && !failures.length) planObject(inputs.host, planned, inputs.name);
    return { inputs, failures };
  };
}
