// A domain found by its identity and observed: the lookups, the outputs from what libvirt
// reports, and the wait for an address of this boot after a start, which never undoes
// the VM: what fails after it started is a partial-init error Pulumi records.
import { explain, KvmError } from "../../errors";
import { log } from "../../log";
import { describeState, DomainRef, DomainXmlFlags, Libvirt, unlessMissing } from "../../libvirt/api";
import { parseDomainXml } from "../../xml/domain";
import { hostLabel } from "../../resources/host-inputs";
import { HostAccess } from "../../resources/context";
import { DomainInputs, DomainOutputs, SeedRecord, waitSpec } from "./inputs";
import { ArpTableUnreadable, interfaceAddresses, LeaseSnapshot, waitForAddress } from "./ip";
import { consoleReport, ConsoleWatch } from "./console";
import { isActiveState, isRunningState } from "./power";
import { composeOutputs, unobservedOutputs } from "./spec";
import { PartialInitError } from "../../resources/partial-init";
import { hasOwnerMarker } from "./object";
import { uuidBytes } from "../../uuid";

/** What a create recorded of the seed, as the outputs carry it (no member that is undefined). */
export const seedRecordOf = (o: SeedRecord): SeedRecord => ({
  seedVolume: o.seedVolume,
  seedPool: o.seedPool,
  ...(o.seedIdentity ? { seedIdentity: o.seedIdentity } : {}),
});

/** The domain of this UUID, if any. */
export const domainByUuid = (lv: Libvirt, uuid: string) => unlessMissing(lv.lookupDomainByUuid(uuidBytes(uuid)), "NO_DOMAIN");

/** The domain of this UUID, refused when it lacks pulumi-kvm's ownership marker (someone else's). */
export async function ownedDomain(lv: Libvirt, uuid: string, host: string, action: string): Promise<DomainRef | undefined> {
  const dom = await domainByUuid(lv, uuid);
  if (dom && !(await hasOwnerMarker(lv, dom))) {
    throw new KvmError("permanent", `domain ${dom.name} was not created by pulumi-kvm (no ownership marker in its metadata); refusing to ${action} it`, {
      host,
      fix: "Manage it by hand, or remove it from the stack with pulumi state delete",
    });
  }
  return dom;
}

export const findDomain = (lv: Libvirt, name: string) => unlessMissing(lv.lookupDomain(name), "NO_DOMAIN");

/** The NICs of the persistent definition, for a lease snapshot before a start. */
export async function definedNics(lv: Libvirt, dom: DomainRef): Promise<{ mac: string; network?: string }[]> {
  return parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE)).interfaces;
}

export async function observe(lv: Libvirt, dom: DomainRef, d: DomainInputs, recorded: SeedRecord, since?: LeaseSnapshot): Promise<DomainOutputs> {
  const live = parseDomainXml(await lv.domainXml(dom, 0));
  const { state } = await lv.domainState(dom);
  const autostart = await lv.domainAutostart(dom);
  const wait = waitSpec(d.waitForIp);
  const active = isActiveState(state);
  // a running VM's memory as asked: the balloon's actual size trails it while the guest gives memory back
  const parsed = active ? { ...live, memoryMiB: parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE)).memoryMiB } : live;
  const addresses = active
    ? await interfaceAddresses(lv, dom, wait?.source ?? "lease", wait?.family ?? "ipv4", since).catch((err) => {
        if (err instanceof ArpTableUnreadable) return []; // reported by the wait; the outputs have no address then
        throw err;
      })
    : [];
  return composeOutputs(d, { parsed, state, active, autostart, addresses }, recorded);
}

/**
 * The error for a VM that exists but did not finish: Pulumi records `properties` under
 * `id` ("created but failed to initialize") and retries on the next `up`.
 */
export function partialInit(message: string, outs: DomainOutputs, reason: string): PartialInitError<DomainOutputs> {
  return new PartialInitError(message, outs.uuid, outs, [reason]);
}

/** A start to observe: the leases from before it, and the console read since it. */
export interface Boot {
  since?: LeaseSnapshot;
  console?: ConsoleWatch;
}

/** Why no address can come any more, checked between polls: the guest stopped or paused, or its console shows a dead end. */
function noAddressCanCome(lv: Libvirt, dom: DomainRef, console: ConsoleWatch | undefined): () => Promise<string | undefined> {
  return async () => {
    const s = await lv.domainState(dom);
    if (!isRunningState(s.state)) return `it is ${describeState(s)}`;
    return console?.tail.deadEnd();
  };
}

/** Waits for an address when asked; the error of a wait that failed carries the domain's state and its console's last lines. */
async function awaitAddress(lv: Libvirt, dom: DomainRef, d: DomainInputs, recorded: SeedRecord, boot: Boot): Promise<void> {
  const host = hostLabel(d.host);
  const wait = waitSpec(d.waitForIp);
  if (!wait || d.running === false) return;
  let outcome;
  try {
    outcome = await waitForAddress(lv, dom, wait, boot.since, noAddressCanCome(lv, dom, boot.console));
  } catch (err) {
    // no address can come this way (not a broken link): the VM is observed and kept
    if (!(err instanceof ArpTableUnreadable)) throw err;
    const e = new KvmError(
      "permanent",
      `domain ${d.name}: libvirt cannot read the host's ARP table (${err.message}); its ARP reader does not understand this kernel's netlink replies`,
      {
        host,
        property: "waitForIp.source",
        fix: 'Use source "agent" with qemuAgent: true and qemu-guest-agent in the guest, or a libvirt whose ARP reader is fixed (virsh domifaddr --source arp shows whether it works). The domain is kept',
      },
    );
    throw partialInit(e.message, await observe(lv, dom, d, recorded, boot.since), e.message);
  }
  if (outcome.found) return;
  const outs = await observe(lv, dom, d, recorded, boot.since);
  const seen = consoleReport(boot.console);
  /*
   * The engine shows a partial-init error's reasons, not its message, and records the reasons
   * in the stack's state: they carry the state, and the console is printed with the error
   * (the provider's output in the run), never stored.
   */
  const failed = (what: string, hint: string) => {
    if (seen) log(`host=${host} ${what}${seen}`, 0);
    return partialInit(`${host}: ${what}${seen}`, outs, `${host}: ${what}${seen ? ` (its console's last lines are printed above)` : ""}. ${hint}`);
  };
  if (outcome.stopped) {
    throw failed(
      `domain ${d.name} will get no ${wait.family} address: ${outcome.stopped} (waitForIp)`,
      "The domain is kept; fix what its console shows (the guest, its kernel, cmdline or disks) and run pulumi up again",
    );
  }
  const state = describeState(await lv.domainState(dom));
  throw failed(
    `domain ${d.name} got no ${wait.family} address within ${wait.timeoutMs / 1000} s (waitForIp, source ${wait.source}); it is ${state}`,
    "Does the network serve DHCP, does the guest bring its interface up? The domain is kept; pulumi up retries the wait",
  );
}

/**
 * Waits for an address of this boot (when asked), then the outputs; the VM exists whatever
 * happens here, unless `signal` stops the run: then its error goes on, for the create to undo.
 * The boot's console is closed when this returns.
 */
export async function observeStarted(
  pool: HostAccess,
  d: DomainInputs,
  dom: DomainRef,
  recorded: SeedRecord,
  boot: Boot,
  what: string,
  signal?: AbortSignal,
): Promise<DomainOutputs> {
  const host = hostLabel(d.host);
  try {
    return await pool.run(
      d.host,
      async (lv) => {
        await awaitAddress(lv, dom, d, recorded, boot);
        return observe(lv, dom, d, recorded, boot.since);
      },
      { signal },
    );
  } catch (err) {
    if (err instanceof PartialInitError || signal?.aborted) throw err;
    const e = explain(err, host, `${what} domain ${d.name}`);
    throw partialInit(
      e.message,
      unobservedOutputs(d, dom, recorded),
      `the domain was started but could not be observed (${e.message}); it is kept, and pulumi up continues from here`,
    );
  } finally {
    boot.console?.close();
  }
}
