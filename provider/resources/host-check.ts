// The host check of \`check\`: the host reachable, its pool and network there (or made by
// this deployment), and what else a check asks the host, each within the check's bound.
import { warn } from "../log";
import type { Libvirt } from "../libvirt/api";
import type { HostHealth } from "../health/check";
import type { HostConfig } from "../ssh/host";
import { ResourceContext } from "./context";
import { hostLabel, hostPlace } from "./host-inputs";
import { Failures } from "./input-checks";
import { isUnknown } from "./unknown";

/**
 * Pools and networks this deployment makes, as their checks told this process: a preview
 * runs before any exists, so a resource that goes into one (an Image into the program's
 * StoragePool, a NIC on its Network) does not find it on the host yet.
 */
const planned = new Set<string>();
const plannedKey = (host: HostConfig, kind: "pool" | "network", name: string) => `${hostPlace(host)} ${kind} ${name}`;

/** Notes a pool or network a resource new to the stack makes (its check passed). */
export function planObject(host: HostConfig, kind: "pool" | "network", name: string): void {
  if (!isUnknown(host) && !isUnknown(name)) planned.add(plannedKey(host, kind, name));
}

/** No answer at all (refused, timed out, no SSH handshake), as opposed to a host that answered no: a wrong login, key, socket or pool. */
const didNotAnswer = (h: HostHealth) =>
  (h.class === "unreachable" || h.class === "timeout") && (h.stage === "tcp" || h.stage === "ssh-handshake" || h.stage === "timeout");

/** The hosts this process warned did not answer: each is named once, not once per resource. */
const warnedHosts = new Set<string>();

/** How long a check waits on a host before its verdict: the host check's bound. */
const CHECK_BOUND_MS = 15_000;

/**
 * What a check asks the host beyond its health (names taken, what the hypervisor offers):
 * undefined when the host is not to be asked (PULUMI_KVM_SKIP_HOST_CHECK) or cannot be
 * (the host check reports that).
 */
export async function askInCheck<T>(pool: ResourceContext["pool"], host: HostConfig, ask: (lv: Libvirt) => Promise<T>): Promise<T | undefined> {
  if (process.env.PULUMI_KVM_SKIP_HOST_CHECK === "1") return undefined;
  try {
    return await pool.probe(host, ask, CHECK_BOUND_MS);
  } catch {
    return undefined;
  }
}

export async function checkHostHealth(
  ctx: ResourceContext,
  failures: Failures,
  host: HostConfig,
  asked: string | undefined,
  askedNetwork?: string,
): Promise<{ availableBytes?: number }> {
  if (failures.length || isUnknown(host) || isUnknown(asked) || isUnknown(askedNetwork)) return {};
  // one this deployment makes is not on the host yet: only the host itself is checked for it
  const pool = asked && planned.has(plannedKey(host, "pool", asked)) ? undefined : asked;
  const network = askedNetwork && planned.has(plannedKey(host, "network", askedNetwork)) ? undefined : askedNetwork;
  if (process.env.PULUMI_KVM_SKIP_HOST_CHECK === "1") {
    // no host check asked for: key material that cannot be read only warns now
    ctx.pool.warnEarly(host);
    return {};
  }
  const h = await ctx.health(host, { pool, network, timeoutMs: CHECK_BOUND_MS }, ctx.pool);
  if (!h.ok && didNotAnswer(h)) {
    // a host that is down fails its own resources when Pulumi acts on them, not the whole
    // preview or update: the other hosts of a fleet go ahead
    const label = hostLabel(host);
    if (!warnedHosts.has(label)) {
      warn(
        `${label} did not answer (${h.error} [stage: ${h.stage}]); its resources were not checked against it and fail if it is still down when Pulumi acts on them; the other hosts' go ahead`,
      );
    }
    warnedHosts.add(label);
  } else if (!h.ok) {
    const property = h.stage === "pool" ? "pool" : h.stage === "network" ? "networkInterfaces" : "host";
    failures.push({ property, reason: `${h.error ?? "host check failed"} [stage: ${h.stage}]` });
  }
  return { availableBytes: h.pool?.availableBytes };
}
