// The collision check of `check`: a resource new to the stack whose libvirt name is
// already taken on the host fails in `pulumi preview`, before anything is made,
// instead of halfway through `pulumi up`.
//
// Pulumi checks a resource it is about to replace a second time, with no olds (so that
// providers can pick new auto-names), and checks the dependents of a delete-before-
// replace the same way, as new resources. Before either, the same deployment asked
// this process to check or diff the resource with its recorded state: the names that
// state holds are remembered here as the stack's own, so a replacement that keeps its
// name is not reported as a collision with itself.
import { Declaration, diffOf } from "./properties";
import { DiffResult } from "./types";
import { Libvirt } from "../libvirt/api";
import { HostConfig } from "../ssh/host";
import { askInCheck } from "./host-check";
import { Failures, recorded } from "./input-checks";
import { hostLabel, hostPlace } from "./host-inputs";
import { isUnknown } from "./unknown";
import { HostAccess } from "./context";

/** One libvirt name a resource takes, and how to tell whether it is taken. */
export interface Claim {
  property: string;
  /** e.g. `volume "web.qcow2" in pool "default"` */
  what: string;
  /** The remove command a user runs on the host to free it. */
  removal: string;
  taken(lv: Libvirt): Promise<boolean>;
}

export interface Claims {
  host: HostConfig;
  claims: Claim[];
}

/** Names the stack holds, as checks with olds told this process. */
const inStack = new Set<string>();
const keyOf = (host: HostConfig, c: Claim) => `${hostPlace(host)} ${c.what}`;

/** Remembers the names a resource of the stack holds (from its recorded state). */
export function rememberStackNames(recorded: Claims | undefined): void {
  if (!recorded || isUnknown(recorded.host)) return;
  for (const c of recorded.claims) if (!isUnknown(c.what)) inStack.add(keyOf(recorded.host, c));
}

/**
 * Adds a failure for each name of `news` that exists on the host and is not the
 * stack's own (`olds`, or remembered from an earlier check or diff). Silent when the
 * host cannot be asked (the host check reports that), and for a resource that adopts.
 */
export async function checkClaims(pool: HostAccess, failures: Failures, news: Claims, olds?: Claims, adopt?: boolean): Promise<void> {
  rememberStackNames(olds);
  if (adopt === true || failures.length || isUnknown(news.host)) return;
  if (news.claims.some((c) => isUnknown(c.what))) return;
  const fresh = news.claims.filter((c) => !inStack.has(keyOf(news.host, c)));
  if (fresh.length === 0) return;
  const taken = await askInCheck(pool, news.host, async (lv) => {
    const out: Claim[] = [];
    for (const c of fresh) if (await c.taken(lv)) out.push(c);
    return out;
  });
  for (const c of taken ?? []) {
    failures.push({
      property: c.property,
      reason: `${c.what} already exists on ${hostLabel(news.host)} and is not part of this stack. Set adopt: true to take it over, remove it on the host (${c.removal}), or choose another ${c.property}`,
    });
  }
}

/**
 * check's collision step: the names `claimsOf` gives the inputs must be free, the stack's
 * own (the olds of a resource in the stack), or adopted.
 */
export function checkNames<T extends { host: HostConfig; name: string; adopt?: boolean }>(
  pool: HostAccess,
  failures: Failures,
  claimsOf: (o: T) => Claims,
  news: T,
  olds: T | undefined,
): Promise<void> {
  const previous = recorded(olds);
  return checkClaims(pool, failures, claimsOf(news), previous && claimsOf(previous), news.adopt);
}

/** diff, derived from the kind's declaration; the recorded names are noted as the stack's for check. */
export function declaredDiff<I extends object, O extends object>(declaration: Declaration<I, O>, claimsOf: (o: O) => Claims) {
  return async (_id: string, olds: O, news: I): Promise<DiffResult> => {
    rememberStackNames(claimsOf(olds));
    return diffOf(declaration, olds, news);
  };
}
