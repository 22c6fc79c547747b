// Taking over a domain made outside Pulumi (`adopt: true`): the one of that name, its type
// and firmware as the program's; a running one keeps running when nothing the program
// changes needs a restart, else it is defined anew and stopped to boot the program's definition.
import { definePatched } from "./patches";
import * as crypto from "crypto";
import { KvmError } from "../../errors";
import { DomainRef, DomainXmlFlags, Impact, Libvirt } from "../../libvirt/api";
import { OBJECTS } from "../objects";
import { uuidHex } from "../../uuid";
import { OWNER_NS, OWNER_PREFIX, ownerMarkerXml, ParsedDomain, parseDomainXml } from "../../xml/domain";
import { alreadyExists, differences, refuseAdoption } from "../../resources/adopt";
import { importDomain } from "./import";
import { DomainInputs, DomainOutputs, shutdownMs } from "./inputs";
import { domainByUuid, findDomain } from "./observe";
import { isActive, stopGracefully } from "./power";
import { keptMacs } from "./spec";
import { applyLive, UpdatePlan, updatePlan } from "./update";
import { Making } from "../../resources/rollback";

/** The domain of that name to take over (its persistent definition), when the resource adopts; refused when it exists otherwise. */
export async function toAdopt(lv: Libvirt, d: DomainInputs, host: string): Promise<ParsedDomain | undefined> {
  const existing = await findDomain(lv, d.name);
  if (!existing) return undefined;
  if (!d.adopt) throw alreadyExists(host, `domain "${d.name}"`, OBJECTS.domain.removal(d.name));
  const current = parseDomainXml(await lv.domainXml(existing, DomainXmlFlags.INACTIVE));
  const diffs = differences({ type: current.type, firmware: current.firmware }, { type: d.type ?? "kvm", firmware: d.firmware ?? "bios" }, [
    "type",
    "firmware",
  ]);
  if (diffs.length) throw refuseAdoption(host, `domain "${d.name}"`, diffs);
  return current;
}

/** An adopted domain that runs, with the update that takes it over: its inputs as `pulumi import` reads them are the olds. */
export interface LiveAdoption {
  dom: DomainRef;
  current: ParsedDomain;
  olds: DomainOutputs;
  plan: UpdatePlan;
}

/**
 * The adoption of a running domain whose program changes nothing that needs a restart (nor
 * its disks or NICs): it keeps running. Otherwise (stopped, not describable as inputs, such a
 * change) undefined: it is stopped to boot the program's definition.
 */
export async function liveAdoption(lv: Libvirt, current: ParsedDomain, d: DomainInputs): Promise<LiveAdoption | undefined> {
  const dom = await domainByUuid(lv, current.uuid);
  if (d.running === false || !dom || !(await isActive(lv, dom))) return undefined;
  let olds: DomainOutputs;
  try {
    olds = (await importDomain(lv, current.uuid, d.host)).outs;
  } catch (err) {
    // what import refuses to describe is taken over by the program's definition, from a fresh start
    if (err instanceof KvmError) return undefined;
    throw err;
  }
  const plan = updatePlan(olds, d);
  const devices = plan.live.includes("disks") || plan.live.includes("networkInterfaces");
  return plan.restartFor.length === 0 && !devices ? { dom, current, olds, plan } : undefined;
}

/**
 * Takes a running domain over without a restart: the live changes (vCPUs, memory) to it, the
 * program's definition for its next start, and the ownership marker on the running domain
 * too, which later changes check.
 */
export async function adoptRunning(
  lv: Libvirt,
  d: DomainInputs,
  xmlOf: (uuid: string, macs: (string | undefined)[]) => string,
  live: LiveAdoption,
  owner: string,
  host: string,
): Promise<DomainRef> {
  await applyLive(lv, live.dom, live.plan, live.olds, d, true, host);
  const dom = await definePatched(lv, d, xmlOf(live.current.uuid, keptMacs(live.current.interfaces, d.networkInterfaces ?? [])));
  await lv.setDomainMetadata(dom, ownerMarkerXml(owner), OWNER_PREFIX, OWNER_NS, Impact.LIVE);
  return dom;
}

/**
 * Defines the domain from `xmlOf(uuid, macs)`: a new one under the journal, with a UUID
 * chosen here (so the journal holds the identity before the domain exists), or the adopted
 * one as the same domain (its UUID, the MACs of interfaces that stay), stopped to boot
 * the program's definition.
 */
export async function define(
  lv: Libvirt,
  d: DomainInputs,
  xmlOf: (uuid: string, macs: (string | undefined)[]) => string,
  current: ParsedDomain | undefined,
  making: Making,
  host: string,
): Promise<DomainRef> {
  if (!current) {
    const uuid = crypto.randomUUID();
    return making.make({ kind: "domain", name: d.name, id: uuidHex(uuid) }, () => definePatched(lv, d, xmlOf(uuid, [])));
  }
  const dom = await definePatched(lv, d, xmlOf(current.uuid, keptMacs(current.interfaces, d.networkInterfaces ?? [])));
  if (await isActive(lv, dom)) await stopGracefully(lv, dom, shutdownMs(d), host);
  return dom;
}
