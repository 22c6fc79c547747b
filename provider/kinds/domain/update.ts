// What an update of a domain does, from the declaration's classes: the changes applied to
// the running VM and its definition (vCPUs and memory within their ceilings), and those
// that need the definition rewritten and one graceful restart for all of them.
import { KvmError } from "../../errors";
import { DomainRef, DomainXmlFlags, Impact, Libvirt } from "../../libvirt/api";
import { parseDomainXml } from "../../xml/domain";
import { applyDeviceChanges, deviceChanges } from "./devices";
import { resolveDisks } from "./spec";
import { log, warn } from "../../log";
import type { DomainInputs, DomainOutputs } from "./inputs";
import { domainDeclaration } from "./declaration";
import { changedOf } from "../../resources/properties";

export interface UpdatePlan {
  /** The changed inputs that need a redefinition and a restart. */
  restartFor: string[];
  /** The changed inputs applied live (power state and autostart included). */
  live: string[];
}

export function updatePlan(olds: DomainOutputs, news: DomainInputs): UpdatePlan {
  return { restartFor: changedOf(domainDeclaration, olds, news, "restart"), live: changedOf(domainDeclaration, olds, news, "live") };
}

/** check with restartPolicy "never": a change that would restart the VM fails the preview, naming what needs it. */
export function refusedRestart(olds: DomainOutputs, news: DomainInputs): { property: string; reason: string } | undefined {
  if (news.restartPolicy !== "never") return undefined;
  const { restartFor } = updatePlan(olds, news);
  if (restartFor.length === 0) return undefined;
  return {
    property: restartFor[0],
    reason: `${restartFor.join(", ")} cannot change without restarting domain ${news.name}, and restartPolicy is "never": nothing was changed. Change only what applies live (within maxVcpu and maxMemory), or allow the restart (restartPolicy: "allowed")`,
  };
}

/**
 * Applies the live changes to the running VM and its definition, or to the definition of a
 * stopped one: vCPUs and memory, then disks and NICs attached and detached.
 */
export async function applyLive(
  lv: Libvirt,
  dom: DomainRef,
  plan: UpdatePlan,
  olds: DomainOutputs,
  news: DomainInputs,
  active: boolean,
  host: string,
): Promise<void> {
  const impact = active ? Impact.LIVE | Impact.CONFIG : Impact.CONFIG;
  await applyCpuAndMemory(lv, dom, plan, news, impact, host);
  const devices = plan.live.includes("disks") || plan.live.includes("networkInterfaces") ? deviceChanges(olds, news) : undefined;
  if (!devices) return;
  const known = parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE));
  const resolved = await resolveDisks(lv, news, host, new Map(known.disks.map((x) => [x.path, x])));
  await applyDeviceChanges(lv, dom, devices, resolved, news, active, host);
}

async function applyCpuAndMemory(lv: Libvirt, dom: DomainRef, plan: UpdatePlan, news: DomainInputs, impact: number, host: string): Promise<void> {
  try {
    if (plan.live.includes("vcpu")) await lv.setDomainVcpus(dom, news.vcpu ?? 1, impact);
    if (plan.live.includes("memory")) await lv.setDomainMemory(dom, BigInt(Number(news.memory ?? 512) * 1024), impact);
  } catch (err) {
    throw liveFailure(news, plan, host, err);
  }
  // a hot-added vCPU starts offline in the guest (Debian's cloud image has no rule that onlines it): the agent brings it online
  if (plan.live.includes("vcpu") && impact & Impact.LIVE && news.qemuAgent) await onlineInGuest(lv, dom, news, host);
}

/**
 * Asks the guest agent to bring the vCPUs online. The agent lists a hot-added vCPU only once
 * the guest has taken it in, which under software emulation can take a minute: until then
 * libvirt answers "reports less cpu than requested", and that is waited out; any other
 * failure (no agent, say) is tried a few times. Says so when the vCPUs stay offline.
 */
export async function onlineInGuest(lv: Pick<Libvirt, "setDomainVcpus">, dom: DomainRef, news: DomainInputs, host: string, pauseMs = 1000): Promise<void> {
  let last: Error | undefined;
  let failures = 0;
  for (let waits = 0; waits < GUEST_TAKE_IN_WAITS && failures < AGENT_ATTEMPTS; waits++) {
    try {
      await lv.setDomainVcpus(dom, news.vcpu ?? 1, VCPU_GUEST);
      return;
    } catch (err) {
      last = err as Error;
      if (!NOT_TAKEN_IN_YET.test(last.message)) failures++;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
  warn(
    `${host}: domain ${news.name} has ${news.vcpu} vCPUs, but the guest agent did not bring them online (${last?.message}); online them in the guest (/sys/devices/system/cpu/cpuN/online)`,
  );
}

/** libvirt's answer while the guest has not taken in a hot-added vCPU (qemuAgentUpdateCPUInfo). */
const NOT_TAKEN_IN_YET = /guest agent reports less cpu than requested/;
const GUEST_TAKE_IN_WAITS = 180;
const AGENT_ATTEMPTS = 10;

/** virDomainVcpuFlags' GUEST: the count the guest has online, set through its agent. */
const VCPU_GUEST = 8;

function liveFailure(news: DomainInputs, plan: UpdatePlan, host: string, err: unknown): KvmError {
  const what = plan.live.filter((k) => k === "vcpu" || k === "memory").join(" and ");
  return new KvmError("permanent", `domain ${news.name}: applying ${what} live failed: ${(err as Error).message}`, {
    host,
    fix: "The guest may lack CPU or memory hotplug support; set maxVcpu/maxMemory equal to vcpu/memory to apply such changes with a restart",
    cause: err,
  });
}

/** The update's log line: what applied live and what needed the restart. */
export function reportPlan(host: string, name: string, plan: UpdatePlan, restarted: boolean): void {
  const parts = [
    ...(plan.live.length ? [`applied live: ${plan.live.join(", ")}`] : []),
    ...(plan.restartFor.length ? [`${restarted ? "restarted" : "redefined (it is not running)"} for: ${plan.restartFor.join(", ")}`] : []),
  ];
  if (parts.length) log(`host=${host} domain ${name}: ${parts.join("; ")}`, 0);
}
