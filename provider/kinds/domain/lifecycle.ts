// The Domain resource's lifecycle: a VM with a cloud-init NoCloud seed, enforced
// running and autostart state, in-place updates that keep UUID and MACs, waiting for
// an IP of this boot, and deletes that shut down gracefully and leave nothing behind.
// Once a VM was started it is never rolled back: a later failure is reported as
// "created but failed to initialize", so Pulumi tracks it and the next `up` continues.
import { checkNames, Claim, Claims, declaredDiff } from "../../resources/collisions";
import { explain, KvmError } from "../../errors";
import { DomainRef, DomainXmlFlags, Libvirt } from "../../libvirt/api";
import { domainXml, parseDomainXml } from "../../xml/domain";
import { adoptRunning, define, liveAdoption, toAdopt } from "./adopt";
import { checkHostHealth } from "../../resources/host-check";
import { Failures, recorded } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import { checkHostOffers } from "./capabilities";
import { checkXmlPatches, definePatched } from "./patches";
import { checkInputs, DomainInputs, DomainOutputs, seedPoolFor, shutdownMs } from "./inputs";
import { leaseSnapshot } from "./ip";
import { startWatched } from "./console";
import { isActive, stopGracefully } from "./power";
import { createSeed, deleteSeed, nextSeedName, recordedSeed, SeedVolume, seedVolumeName, warnSeedLeft } from "./seed";
import { keptMacs, resolveDisks, specOf } from "./spec";
import { requireNamedObjects } from "../../resources/named-objects";
import { volumeClaims } from "../../resources/storage";
import { clearLeftovers, isJournalled, Making } from "../../resources/rollback";
import { interruptible } from "../../resources/interrupt";
import { processContext, ResourceContext } from "../../resources/context";
import { ResourceProvider } from "../../resources/types";
import { applyLive, refusedRestart, reportPlan, updatePlan } from "./update";
import { checkMove, moveDomain, movesHost } from "./move";
import { deleteRecorded, readRecorded, RecordedObject, updateRecorded } from "../../resources/lifecycle";
import { removeDomain } from "./object";
import { Boot, definedNics, domainByUuid, findDomain, observe, observeStarted, ownedDomain, seedRecordOf } from "./observe";
import { domainDeclaration } from "./declaration";
import { importDomain } from "./import";
import { OBJECTS } from "../objects";

export type { DiskInput, DomainInputs, DomainOutputs, InterfaceInput } from "./inputs";

function claimsOf(d: DomainInputs): Claims {
  const claims: Claim[] = [
    {
      property: "name",
      what: `domain "${d.name}"`,
      removal: OBJECTS.domain.removal(d.name),
      taken: async (lv) => !!(await findDomain(lv, d.name)) && !(await isJournalled(lv, d.host, "domain", d.name)),
    },
  ];
  if (d.cloudInit) claims.push(...volumeClaims({ host: d.host, pool: seedPoolFor(d), name: seedVolumeName(d.name) }, "seed volume").claims);
  return { host: d.host, claims };
}

export function createDomainProvider(ctx: ResourceContext): ResourceProvider<DomainInputs, DomainOutputs> {
  return {
    async check(olds, news) {
      const failures: Failures = [];
      const inputs = checkInputs(news, failures);
      // a list not known yet (preview) names no network to check
      const nics = Array.isArray(inputs.networkInterfaces) ? inputs.networkInterfaces : [];
      const networks = [...new Set(nics.map((n) => n.network).filter((n): n is string => !!n && !isUnknown(n)))];
      await checkHostHealth(ctx, failures, inputs.host, seedPoolFor(inputs), networks[0]);
      for (const net of networks.slice(1)) await checkHostHealth(ctx, failures, inputs.host, seedPoolFor(inputs), net);
      checkXmlPatches(inputs, failures);
      await checkHostOffers(ctx, failures, inputs);
      // a domain new to the stack (or moving to a new name or host) must find its names free
      await checkNames(ctx.pool, failures, claimsOf, inputs, olds);
      const previous = recorded(olds);
      if (previous) checkMove(previous, inputs, failures);
      const refused = previous && !failures.length ? refusedRestart(previous, inputs) : undefined;
      if (refused) failures.push(refused);
      return { inputs, failures };
    },

    diff: declaredDiff(domainDeclaration, claimsOf),

    create: (d) =>
      interruptible(async (signal) => {
        const host = hostLabel(d.host);
        const owner = d.resourceName ?? d.name;
        const making = new Making(ctx.pool, d.host);
        let seed: SeedVolume | undefined;
        let started: { dom: DomainRef; boot: Boot };
        try {
          started = await ctx.pool.run(
            d.host,
            async (lv) => {
              await clearLeftovers(d.host, lv);
              const current = await toAdopt(lv, d, host);
              const live = current && (await liveAdoption(lv, current, d));
              const disks = await resolveDisks(lv, d, host, current && new Map(current.disks.map((x) => [x.path, x])));
              await requireNamedObjects(lv, domainDeclaration, d, host);
              const made = d.cloudInit ? await createSeed(lv, d, host, making, signal) : undefined;
              seed = made && { pool: made.pool, name: made.name, identity: made.identity };
              const xmlOf = (uuid: string, macs: (string | undefined)[]) => domainXml(specOf(d, disks, made?.path, owner, macs, uuid));
              const dom = live ? await adoptRunning(lv, d, xmlOf, live, owner, host) : await define(lv, d, xmlOf, current, making, host);
              if (!!d.autostart !== (await lv.domainAutostart(dom))) await lv.setDomainAutostart(dom, !!d.autostart);
              if (live) return { dom, boot: {} };
              // a lease this MAC had before (a pinned MAC reused) is not this boot's address
              const since = await leaseSnapshot(lv, await definedNics(lv, dom));
              const console = d.running !== false ? await startWatched(lv, dom) : undefined;
              return { dom, boot: { since, console } };
            },
            { mutating: true, signal },
          );
        } catch (err) {
          // the VM never ran: nothing is left behind
          await making.undo();
          throw explain(err, host, `creating domain ${d.name}`);
        }
        try {
          const outs = await observeStarted(
            ctx.pool,
            d,
            started.dom,
            seedRecordOf({ seedVolume: seed?.name, seedPool: seed?.pool, seedIdentity: seed?.identity }),
            started.boot,
            "creating",
            signal,
          );
          await making.kept();
          return { id: outs.uuid, outs };
        } catch (err) {
          // a started VM the engine records (partial-init) is kept; a stopped run records nothing
          if (signal.aborted) await making.undo();
          else await making.kept();
          throw err;
        }
      }),

    read: (id, props) =>
      readRecorded(
        ctx.pool,
        recordedDomain(props, id),
        id,
        props,
        (lv, dom) => observe(lv, dom, props, seedRecordOf(props)),
        (lv) => warnSeedLeft(lv, props.name, recordedSeed(props), hostLabel(props.host)),
      ),

    async update(id, recordedOlds, news) {
      // another host: the VM moves there first, and the rest of the update applies there
      const olds = movesHost(recordedOlds, news)
        ? { ...recordedOlds, host: news.host, disks: news.disks, ...(await interruptible((signal) => moveDomain(ctx.pool, id, recordedOlds, news, signal))) }
        : recordedOlds;
      // the newest credentials: a key rotated in this very update already applies
      const host = hostLabel(news.host);
      // a new seed is made under the journal: a failed update removes it
      const making = new Making(ctx.pool, news.host);
      let seed = seedRecordOf(olds);
      const boot: Boot = {};
      const result = await updateRecorded(ctx.pool, recordedDomain({ ...olds, host: news.host }, id, "update"), async (lv, dom) => {
        const start = async () => {
          boot.since = await leaseSnapshot(lv, await definedNics(lv, dom));
          boot.console = await startWatched(lv, dom);
        };
        const plan = updatePlan(olds, news);
        // edited cloud-init: a new seed (a new instance-id) under a new name, so cloud-init runs again on the restart
        const reseeded = plan.restartFor.includes("cloudInit");
        const made = reseeded && news.cloudInit ? await createSeed(lv, news, host, making, undefined, nextSeedName(news)) : undefined;
        if (reseeded) seed = seedRecordOf({ seedVolume: made?.name, seedPool: made?.pool, seedIdentity: made?.identity });
        const previousXml = plan.restartFor.length > 0 ? await redefine(lv, dom, olds, news, host, reseeded ? { path: made?.path } : undefined) : undefined;
        const wasActive = await isActive(lv, dom);
        // the new definition holds the live changes too; without one they apply to the running VM
        if (!previousXml) await applyLive(lv, dom, plan, olds, news, wasActive, host);
        // a running VM picks a new definition up only on a fresh start
        if (previousXml && news.running !== false && wasActive) await stopGracefully(lv, dom, shutdownMs(news), host);
        if (news.running === false && (await isActive(lv, dom))) await stopGracefully(lv, dom, shutdownMs(news), host);
        if (news.running !== false && !(await isActive(lv, dom))) await startOrRestore(lv, start, previousXml, olds.name, host);
        if (!!news.autostart !== (await lv.domainAutostart(dom))) await lv.setDomainAutostart(dom, !!news.autostart);
        reportPlan(host, news.name, plan, !!previousXml && wasActive && news.running !== false);
        // the new definition holds the new seed now: the old one goes
        await making.kept();
        if (reseeded && olds.seedVolume)
          await deleteSeed(lv, { pool: olds.seedPool ?? seedPoolFor(olds), name: olds.seedVolume, identity: olds.seedIdentity }, host);
        return { dom, boot };
      }).catch(async (err: unknown) => {
        boot.console?.close();
        await making.undo();
        throw err;
      });
      const outs = await observeStarted(ctx.pool, news, result.dom, seed, result.boot, "updating");
      return { outs: olds.imported ? { ...outs, imported: true } : outs };
    },

    importObject: (id, host) => ctx.pool.run(host, (lv) => importDomain(lv, id, host)),

    delete: (id, props) =>
      deleteRecorded(
        ctx.pool,
        recordedDomain(props, id, "delete"),
        (lv, dom) => removeDomain(lv, dom, shutdownMs(props), hostLabel(props.host), true),
        // the seed, found or not
        async (lv) => {
          const seed = recordedSeed(props);
          if (seed) await deleteSeed(lv, seed, hostLabel(props.host));
        },
      ),
  };
}

/**
 * The domain of the record, by its UUID: for a change (`action`), it must carry our
 * ownership marker too, unless it was imported. Another domain under the name is not this resource's.
 */
function recordedDomain(d: Pick<DomainOutputs, "host" | "name" | "imported">, uuid: string, action?: string): RecordedObject<DomainRef> {
  return {
    host: d.host,
    what: `domain ${d.name}`,
    async find(lv) {
      // an imported domain carries no marker: its UUID, recorded at the import, proves it
      const dom = action && !d.imported ? await ownedDomain(lv, uuid, hostLabel(d.host), action) : await domainByUuid(lv, uuid);
      if (dom) return { ref: dom };
      const other = await findDomain(lv, d.name);
      return other ? { other } : {};
    },
  };
}

export const domainProvider = createDomainProvider(processContext);

/**
 * Redefines a domain with `news`, keeping its UUID, seed and the MACs of interfaces
 * that stay; returns the previous persistent definition.
 */
async function redefine(lv: Libvirt, dom: DomainRef, olds: DomainOutputs, news: DomainInputs, host: string, newSeed?: { path?: string }): Promise<string> {
  const previousXml = await lv.domainXml(dom, DomainXmlFlags.INACTIVE /* the persistent config */);
  const current = parseDomainXml(previousXml);
  const known = new Map(current.disks.map((x) => [x.path, x]));
  const disks = await resolveDisks(lv, news, host, known);
  const seedPath = newSeed ? newSeed.path : current.disks.find((x) => x.device === "cdrom" && olds.seedVolume && x.path.endsWith(`/${olds.seedVolume}`))?.path;
  const macs = keptMacs(current.interfaces, news.networkInterfaces ?? []);
  await definePatched(lv, news, domainXml(specOf(news, disks, seedPath, olds.resourceName ?? olds.name, macs, current.uuid)));
  return previousXml;
}

/** Starts the domain; when a new definition does not start, the previous one is defined and started again. */
async function startOrRestore(lv: Libvirt, start: () => Promise<void>, previousXml: string | undefined, name: string, host: string): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!previousXml) throw err;
    await lv.defineDomain(previousXml);
    await start();
    throw new KvmError(
      "permanent",
      `the new definition of domain ${name} did not start (${(err as Error).message}); the previous definition was restored and runs again`,
      {
        host,
        fix: "Fix the inputs named in the message and run pulumi up again",
        cause: err,
      },
    );
  }
}
