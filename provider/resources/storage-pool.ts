// The StoragePool resource: a directory pool defined, built (its directory made),
// started and autostarted, so a bare host can be set up from Pulumi. Delete refuses while
// volumes remain; otherwise it stops the pool, removes its directory if empty and
// undefines it.
import * as path from "path";
import { explain, KvmError } from "../errors";
import { isLibvirtError, Libvirt, PoolRef, PoolState } from "../libvirt/api";
import { HostConfig } from "../ssh/host";
import { parsePoolXml, poolXml, PoolType } from "../xml/pool";
import { POOL_STATES } from "../health/check";
import { differences, refuseAdoption } from "./adopt";
import { checkClaims, Claims, rememberStackNames } from "./collisions";
import { checkBoolean, checkHostHealth, checkHostInput, checkName, explainRecorded, Failures, hostLabel, isUnknown, leftAlone, recorded } from "./common";
import { processContext, ResourceContext } from "./context";
import { findPool } from "./storage";
import { clearLeftovers, isJournalled } from "./rollback";
import { createHostObject, findRecorded, recordedGone } from "./host-object";
import { ResourceProvider } from "./types";
import { diffOf, withDefaults } from "./properties";
import { storagePoolDeclaration } from "./storage-pool-properties";
import { OBJECTS } from "../kinds";

export interface StoragePoolInputs {
  host: HostConfig;
  name: string;
  resourceName?: string;
  type: PoolType;
  /** The pool's directory on the host. */
  path: string;
  autostart?: boolean;
  adopt?: boolean;
}

export interface StoragePoolOutputs extends StoragePoolInputs {
  kvmKind: "StoragePool";
  uuid: string;
  state: string;
  capacityBytes: number;
  availableBytes: number;
}

function claimsOf(p: Pick<StoragePoolInputs, "host" | "name">): Claims {
  return {
    host: p.host,
    claims: [
      {
        property: "name",
        what: `storage pool "${p.name}"`,
        removal: OBJECTS.pool.removal(p.name),
        taken: async (lv) => !!(await findPool(lv, p.name)) && !(await isJournalled(lv, p.host, "pool", p.name)),
      },
    ],
  };
}

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

export function createStoragePoolProvider(ctx: ResourceContext): ResourceProvider<StoragePoolInputs, StoragePoolOutputs> {
  return {
    async check(olds, news) {
      const failures: Failures = [];
      const inputs: StoragePoolInputs = { ...withDefaults(storagePoolDeclaration, news), name: news.name ?? news.resourceName ?? "" };
      inputs.host = checkHostInput(failures, news.host) as HostConfig;
      checkName(failures, "name", inputs.name);
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
      checkBoolean(failures, "autostart", news.autostart);
      checkBoolean(failures, "adopt", news.adopt);
      // only reachability: the pool itself is what this resource makes
      await checkHostHealth(ctx, failures, inputs.host, undefined);
      const previous = recorded(olds);
      await checkClaims(ctx.pool, failures, claimsOf(inputs), previous && claimsOf(previous), inputs.adopt);
      return { inputs, failures };
    },

    async diff(_id, olds, news) {
      rememberStackNames(claimsOf(olds));
      return diffOf(storagePoolDeclaration, olds, news);
    },

    create: (inputs) =>
      createHostObject(ctx.pool, inputs, {
        kind: "pool",
        what: `storage pool "${inputs.name}"`,
        removal: OBJECTS.pool.removal(inputs.name),
        find: (lv) => findPool(lv, inputs.name),
        async adopt(lv, pool) {
          const d = parsePoolXml(await lv.poolXml(pool));
          const diffs = differences({ type: d.type, path: d.path }, { type: inputs.type, path: inputs.path }, ["type", "path"]);
          if (diffs.length) throw refuseAdoption(hostLabel(inputs.host), `storage pool "${inputs.name}"`, diffs);
        },
        define: (lv, uuid) => lv.definePool(poolXml({ name: inputs.name, uuid, type: inputs.type, path: inputs.path })),
        // makes the directory (owned as libvirt's pools are); an existing one is kept
        build: (lv, pool) => lv.buildPool(pool),
        async settle(lv, pool) {
          await enforce(lv, pool, inputs.autostart !== false);
          return observe(lv, pool, inputs);
        },
      }),

    async read(id, props) {
      try {
        return await ctx.pool.run(props.host, async (lv) => {
          // another pool under the name is not this resource's: it is gone
          const { ref: pool } = await findRecorded(findPool(lv, props.name), id);
          if (!pool) return { id: "", props };
          return { id, props: await observe(lv, pool, props) };
        });
      } catch (err) {
        throw explainRecorded(err, hostLabel(props.host), `reading storage pool ${props.name}`);
      }
    },

    async update(id, olds, news) {
      const host = hostLabel(news.host);
      try {
        return await ctx.pool.run(
          news.host,
          async (lv) => {
            const { ref: pool } = await findRecorded(findPool(lv, olds.name), id);
            if (!pool) throw recordedGone(host, `storage pool ${olds.name}`);
            await enforce(lv, pool, news.autostart !== false);
            return { outs: await observe(lv, pool, { ...olds, ...news }) };
          },
          { mutating: true },
        );
      } catch (err) {
        throw explain(err, host, `updating storage pool ${olds.name}`);
      }
    },

    async delete(id, props) {
      const host = hostLabel(props.host);
      try {
        await ctx.pool.run(
          props.host,
          async (lv) => {
            await clearLeftovers(props.host, lv);
            const { ref: pool, other } = await findRecorded(findPool(lv, props.name), id);
            if (other) leftAlone(host, `storage pool ${props.name}`, "delete");
            if (!pool) return;
            if (await lv.poolIsActive(pool)) {
              const volumes = (await lv.listVolumes(pool)).map((v) => v.name);
              if (volumes.length) {
                throw new KvmError("conflict", `storage pool "${props.name}" still holds ${volumes.length} volume(s): ${volumes.join(", ")}`, {
                  host,
                  fix: "Delete those volumes first (remove their resources from the program, or virsh vol-delete them), then destroy the pool",
                });
              }
              await lv.stopPool(pool);
            }
            // the directory goes only when empty: libvirt's rmdir refuses anything else
            await lv.deletePoolStorage(pool).catch((err) => {
              if (!isLibvirtError(err)) throw err;
            });
            await lv.undefinePool(pool);
          },
          { mutating: true },
        );
      } catch (err) {
        throw explainRecorded(err, host, `deleting storage pool ${props.name}`);
      }
    },
  };
}

export const storagePoolProvider = createStoragePoolProvider(processContext);
