// The Snapshot resource: a libvirt snapshot of a domain pulumi-kvm made, its disks (and a
// running VM's memory with `memory: true`). Known by its identity: the domain's UUID, the
// name and libvirt's creation time, so a snapshot someone took later under the name is
// never deleted. Reverting is the user's act (`pulumi-kvm snapshot revert`), not the program's.
import { explain, KvmError } from "../../errors";
import { DomainRef, isLibvirtError, Libvirt, SnapshotRef, unlessMissing } from "../../libvirt/api";
import { parseSnapshotXml, snapshotXml } from "../../xml/snapshot";
import { checkBoolean, checkName, Failures, reporter } from "../../resources/input-checks";
import { checkHostHealth } from "../../resources/host-check";
import { checkHostInput, hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import { Claims, checkNames, declaredDiff } from "../../resources/collisions";
import { processContext, ResourceContext } from "../../resources/context";
import { domainByUuid, findDomain } from "../domain/observe";
import { isActive } from "../domain/power";
import { deleteRecorded, readRecorded, RecordedObject, updateRecorded } from "../../resources/lifecycle";
import { withDefaults } from "../../resources/properties";
import { snapshotDeclaration, SnapshotInputs, SnapshotOutputs } from "./declaration";

export type { SnapshotInputs, SnapshotOutputs } from "./declaration";
import { ResourceProvider } from "../../resources/types";
import { OBJECTS } from "../objects";
import { importedUuid, notOnHost, present } from "../../resources/import";
import { uuidBytes, uuidText } from "../../uuid";

const UUID_RE = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

const findSnapshot = (lv: Libvirt, dom: DomainRef, name: string) => unlessMissing(lv.lookupSnapshot(dom, name), "NO_DOMAIN_SNAPSHOT");

function claimsOf(s: Pick<SnapshotInputs, "host" | "domain" | "name">): Claims {
  return {
    host: s.host,
    claims: [
      {
        property: "name",
        what: `snapshot "${s.name}" of domain "${s.domain}"`,
        removal: OBJECTS.snapshot.removal(s.name, s.domain),
        taken: async (lv) => {
          const dom = await findDomain(lv, s.domain);
          return !!dom && !!(await findSnapshot(lv, dom, s.name));
        },
      },
    ],
  };
}

function checkSnapshotInputs(failures: Failures, news: SnapshotInputs, olds: SnapshotOutputs | undefined): SnapshotInputs {
  // a snapshot recorded before domainUuid was an input keeps the domain it was taken of
  const inputs = withDefaults(snapshotDeclaration, { ...news, name: news.name ?? news.resourceName, domainUuid: news.domainUuid ?? olds?.domainUuid });
  const bad = reporter(failures);
  checkHostInput(failures, inputs.host);
  if (inputs.domain === undefined) bad("domain", "is required: the name of the domain to snapshot (e.g. vm.name)");
  else checkName(failures, "domain", inputs.domain);
  if (inputs.domainUuid === undefined)
    bad(
      "domainUuid",
      "is required: the UUID of the Domain to snapshot (its uuid output; in TypeScript pass the Domain itself as domain), so that only the domain this stack made is ever snapshotted",
    );
  else if (!isUnknown(inputs.domainUuid) && (typeof inputs.domainUuid !== "string" || !UUID_RE.test(inputs.domainUuid)))
    bad("domainUuid", `must be a UUID such as a Domain's uuid output, got ${JSON.stringify(inputs.domainUuid)}`);
  else if (!isUnknown(inputs.domainUuid)) inputs.domainUuid = uuidText(uuidBytes(inputs.domainUuid));
  checkName(failures, "name", inputs.name);
  if (inputs.description !== undefined && !isUnknown(inputs.description) && typeof inputs.description !== "string") bad("description", "must be a string");
  checkBoolean(failures, "memory", inputs.memory);
  return inputs;
}

/** The domain to snapshot: the stack's own, by the UUID it recorded (its name alone is a label anyone can take). */
async function ownDomain(lv: Libvirt, s: SnapshotInputs, host: string): Promise<DomainRef> {
  const dom = await domainByUuid(lv, s.domainUuid!);
  if (!dom || dom.name !== s.domain)
    throw new KvmError(
      "permanent",
      `the domain "${s.domain}" with UUID ${s.domainUuid} is not on the host${dom ? ` (that UUID is domain "${dom.name}")` : ""}; a domain of that name made by anyone else is never snapshotted`,
      {
        host,
        property: "domainUuid",
        fix: "Pass the Domain of the stack (TypeScript: domain: vm; other languages: domain and domainUuid from its name and uuid outputs)",
      },
    );
  return dom;
}

/** libvirt's refusal of a kind of snapshot, with what works instead. */
function unsupported(err: unknown, s: SnapshotInputs, host: string): unknown {
  if (!isLibvirtError(err, "OPERATION_UNSUPPORTED", "CONFIG_UNSUPPORTED", "ARGUMENT_UNSUPPORTED", "XML_ERROR")) return err;
  return new KvmError("permanent", `libvirt cannot take snapshot "${s.name}" of domain ${s.domain}: ${err.message}`, {
    host,
    property: s.memory ? "memory" : "domain",
    fix: "This libvirt takes internal snapshots: of a running VM only with its memory (memory: true), of a shut-off VM its disks; all writable disks qcow2; not of UEFI VMs, whose NVRAM is a raw file. Set memory: true, stop the VM (running: false) for a disk-only snapshot, or use a BIOS VM",
    cause: err,
  });
}

async function observe(lv: Libvirt, ref: SnapshotRef, inputs: SnapshotInputs): Promise<SnapshotOutputs> {
  const d = parseSnapshotXml(await lv.snapshotXml(ref));
  return { ...inputs, kvmKind: "Snapshot", domainUuid: d.domainUuid, creationTime: d.creationTime, state: d.state };
}

/** The snapshot of the record: the same domain, name and creation time. */
const recordedSnapshot = (s: SnapshotOutputs): RecordedObject<SnapshotRef> => ({
  host: s.host,
  what: `snapshot ${s.name} of domain ${s.domain}`,
  async find(lv) {
    const dom = await domainByUuid(lv, s.domainUuid);
    const ref = dom && (await findSnapshot(lv, dom, s.name));
    if (!ref) return {};
    const d = parseSnapshotXml(await lv.snapshotXml(ref));
    return d.creationTime === s.creationTime ? { ref } : { other: ref };
  },
});

export function createSnapshotProvider(ctx: ResourceContext): ResourceProvider<SnapshotInputs, SnapshotOutputs> {
  return {
    async check(olds, news) {
      const failures: Failures = [];
      const inputs = checkSnapshotInputs(failures, news, olds);
      if (!failures.length) await checkHostHealth(ctx, failures, inputs.host, undefined);
      await checkNames(ctx.pool, failures, claimsOf, inputs, olds);
      return { inputs, failures };
    },

    diff: declaredDiff(snapshotDeclaration, claimsOf),

    async create(inputs) {
      const host = hostLabel(inputs.host);
      try {
        return await ctx.pool.run(
          inputs.host,
          async (lv) => {
            const dom = await ownDomain(lv, inputs, host);
            const running = await isActive(lv, dom);
            const xml = snapshotXml({ name: inputs.name, description: inputs.description, memory: running && !!inputs.memory });
            const ref = await lv.createSnapshot(dom, xml, 0).catch((err: unknown) => {
              throw unsupported(err, inputs, host);
            });
            const outs = await observe(lv, ref, inputs);
            return { id: `${outs.domainUuid}/${outs.name}/${outs.creationTime}`, outs };
          },
          { mutating: true },
        );
      } catch (err) {
        throw explain(err, host, `taking snapshot ${inputs.name} of domain ${inputs.domain}`);
      }
    },

    read: (id, props) => readRecorded(ctx.pool, recordedSnapshot(props), id, props, (lv, ref) => observe(lv, ref, props)),

    // only the description is recorded in place: the snapshot itself stays as it was taken
    update: (_id, olds, news) =>
      updateRecorded(ctx.pool, recordedSnapshot({ ...olds, host: news.host }), async () => ({ outs: { ...olds, ...news, kvmKind: "Snapshot" as const } })),

    delete: (_id, props) => deleteRecorded(ctx.pool, recordedSnapshot(props), (lv, ref) => lv.deleteSnapshot(ref)),

    async importObject(id, host) {
      const label = hostLabel(host);
      const listing = "virsh snapshot-list DOMAIN (the ID is DOMAIN-UUID/NAME/CREATION-TIME, as pulumi-kvm snapshot list --json shows)";
      const [domainUuid, name, time] = id.split("/");
      if (!name || !/^\d+$/.test(time ?? "")) {
        throw new KvmError("permanent", `the ID to import a Snapshot by is DOMAIN-UUID/NAME/CREATION-TIME, not ${JSON.stringify(id)}`, {
          host: label,
          fix: `Find it with ${listing}`,
        });
      }
      importedUuid(domainUuid, "Snapshot's domain", label, "virsh domuuid DOMAIN");
      return ctx.pool.run(host, async (lv) => {
        const dom = await domainByUuid(lv, domainUuid);
        const ref = dom && (await findSnapshot(lv, dom, name));
        const d = ref && parseSnapshotXml(await lv.snapshotXml(ref));
        if (!dom || !ref || !d || d.creationTime !== Number(time))
          throw notOnHost(label, `snapshot ${name} of the domain with UUID ${domainUuid}, taken at ${time}`, listing);
        const inputs = present<SnapshotInputs>({
          host,
          domain: dom.name,
          domainUuid: d.domainUuid,
          name,
          description: d.description,
          memory: d.memory || undefined,
        });
        return { id, inputs, outs: await observe(lv, ref, inputs) };
      });
    },
  };
}

export const snapshotProvider = createSnapshotProvider(processContext);
