// The StoragePool resource: a directory pool defined, built (its directory made),
// started and autostarted, so a bare host can be set up from Pulumi. Delete refuses while
// volumes remain; otherwise it stops the pool, removes its directory if empty and
// undefines it.
import { checkNamedInputs, namedObjectCheck } from "../../resources/named-check";
import { Claims, declaredDiff } from "../../resources/collisions";
import * as path from "path";
import { Libvirt, POOL_STATES, PoolRef, PoolState } from "../../libvirt/api";
import { parsePoolXml, poolXml, PoolType } from "../../xml/pool";
import { differences, refuseAdoption } from "../../resources/adopt";
import { Failures } from "../../resources/input-checks";
import { hostLabel } from "../../resources/host-inputs";
import { isUnknown } from "../../resources/unknown";
import { processContext, ResourceContext } from "../../resources/context";
import { findPool } from "../../resources/storage";
import { createHostObject, findRecorded, nameClaims } from "../../resources/host-object";
import { ResourceProvider } from "../../resources/types";
import { deleteRecorded, readRecorded, RecordedObject, updateRecorded } from "../../resources/lifecycle";
import { poolImport, removePool } from "./object";
import { importByUuid } from "../../resources/import";
import { KvmError } from "../../errors";
import { storagePoolDeclaration, StoragePoolInputs, StoragePoolOutputs } from "./declaration";

export type { StoragePoolInputs, StoragePoolOutputs } from "./declaration";

const claimsOf = (p: Pick<StoragePoolInputs, "host" | "name">): Claims =>
  nameClaims(p.host, p.name, "pool", `storage pool "${p.name}"`, (lv) => findPool(lv, p.name));

async function observe(lv: Libvirt, pool: PoolRef, inputs: StoragePoolInputs): Promise<StoragePoolOutputs> {
  const [info, autostart, xml] = await Promise.all([lv.poolInfo(pool), lv.poolAutostart(pool), lv.poolXml(pool)]);
  const d = parsePoolXml(xml);
  return {
    ...inputs,
    kvmKind: "StoragePool",
    type: d.type as PoolType,
    path: d.path,
    autostart,
    uuid: d.uuid,
    state: POOL_STATES[info.state] ?? String(info.state),
    capacityBytes: Number(info.capacity),
    availableBytes: Number(info.available),
  };
}

/** Runs the pool and sets its autostart as asked (an adopted or refreshed pool may differ). */
async function enforce(lv: Libvirt, pool: PoolRef, autostart: boolean): Promise<void> {
  if ((await lv.poolInfo(pool)).state !== PoolState.RUNNING) await lv.startPool(pool);
  if ((await lv.poolAutostart(pool)) !== autostart) await lv.setPoolAutostart(pool, autostart);
}

/** A pool's inputs: a directory of its own on the host. */
export function checkStoragePoolInputs(failures: Failures, news: StoragePoolInputs): StoragePoolInputs {
  const inputs = checkNamedInputs(failures, storagePoolDeclaration, news);
  if (!isUnknown(inputs.type) && inputs.type !== "dir")
    failures.push({ property: "type", reason: `type must be "dir" (a directory on the host), got ${JSON.stringify(inputs.type)}` });
  const p = news.path;
  if (p === undefined || p === null || p === "")
    failures.push({ property: "path", reason: "path is required: the pool's directory on the host, e.g. /var/lib/libvirt/images/fast" });
  else if (!isUnknown(p)) {
    if (typeof p !== "string" || !p.startsWith("/"))
      failures.push({ property: "path", reason: `path must be an absolute directory on the host, got ${JSON.stringify(p)}` });
    else if (p.split("/").includes("..") || /[\s'"<>&]/.test(p))
      failures.push({ property: "path", reason: `path ${JSON.stringify(p)} must not contain "..", spaces or quotes` });
    else if (p === "/") failures.push({ property: "path", reason: "path / is the host's root: give a directory of its own" });
    else inputs.path = path.posix.normalize(p).replace(/\/$/, "");
  }
  return inputs;
}

export function createStoragePoolProvider(ctx: ResourceContext): ResourceProvider<StoragePoolInputs, StoragePoolOutputs> {
  return {
    check: namedObjectCheck(ctx, checkStoragePoolInputs, claimsOf, "pool"),

    diff: declaredDiff(storagePoolDeclaration, claimsOf),

    create: (inputs) =>
      createHostObject(ctx.pool, inputs, {
        kind: "pool",
        what: `storage pool "${inputs.name}"`,
        find: (lv) => findPool(lv, inputs.name),
        async adopt(lv, pool) {
          const d = parsePoolXml(await lv.poolXml(pool));
          const diffs = differences({ type: d.type, path: d.path }, { type: inputs.type, path: inputs.path }, ["type", "path"]);
          if (diffs.length) throw refuseAdoption(hostLabel(inputs.host), `storage pool "${inputs.name}"`, diffs);
        },
        define: (lv, uuid) => lv.definePool(poolXml({ name: inputs.name, uuid, type: inputs.type, path: inputs.path })),
        // makes the directory (owned as libvirt's pools are); an existing one is kept
        build: (lv, pool) => lv.buildPool(pool),
        async bringToState(lv, pool) {
          await enforce(lv, pool, inputs.autostart !== false);
          return observe(lv, pool, inputs);
        },
      }),

    read: (id, props) => readRecorded(ctx.pool, recordedPool(props, id), id, props, (lv, pool) => observe(lv, pool, props)),

    update: (id, olds, news) =>
      updateRecorded(ctx.pool, recordedPool({ ...olds, host: news.host }, id), async (lv, pool) => {
        await enforce(lv, pool, news.autostart !== false);
        return { outs: await observe(lv, pool, { ...olds, ...news }) };
      }),

    delete: (id, props) => deleteRecorded(ctx.pool, recordedPool(props, id), (lv, pool) => removePool(lv, pool, hostLabel(props.host))),

    importObject: importByUuid(ctx.pool, poolImport, async (lv, pool, host, label) => {
      const d = parsePoolXml(await lv.poolXml(pool));
      if (d.type !== "dir") {
        throw new KvmError("permanent", `storage pool ${d.name} is a "${d.type}" pool; pulumi-kvm manages directory pools only`, {
          host: label,
          fix: "Leave it out of the import; a Volume or Image names it by its pool input all the same",
        });
      }
      const inputs: StoragePoolInputs = { host, name: d.name, type: "dir", path: d.path, autostart: await lv.poolAutostart(pool) };
      const outs = await observe(lv, pool, inputs);
      return { id: outs.uuid, inputs, outs };
    }),
  };
}

/** The pool of the record: another pool under the name is not this resource's. */
const recordedPool = (p: Pick<StoragePoolInputs, "host" | "name">, uuid: string): RecordedObject<PoolRef> => ({
  host: p.host,
  what: `storage pool ${p.name}`,
  find: (lv) => findRecorded(findPool(lv, p.name), uuid),
});

export const storagePoolProvider = createStoragePoolProvider(processContext);
