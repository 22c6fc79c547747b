// Read-only lookups of what a program references but does not manage: a domain, a network,
// a volume, a storage pool by name, and the host itself (terraform's node_info). Declared
// once here, each with its arguments and results typed as object fields are
// (object-types.ts): the plugin's schema functions, its invoke and the TypeScript
// functions all derive from this table. Nothing here writes to the host.
import { KvmError } from "../errors";
import { formatVersion } from "../health/check";
import { DomainXmlFlags, Libvirt, POOL_STATES, unlessMissing } from "../libvirt/api";
import type { HostConfig } from "../ssh/host";
import { parseDomainXml } from "../xml/domain";
import { parseNetworkXml } from "../xml/network";
import { parsePoolXml } from "../xml/pool";
import { hostLabel } from "./host-inputs";
import { describeState } from "../libvirt/api";
import type { Field } from "./object-types";
import { describeVolume } from "./storage";
import { HostPool } from "../pool/host-pool";
import { toEngine } from "./engine";

type Values = Record<string, unknown>;

export interface Lookup {
  doc: string;
  /** Besides `host` (the provider's where left out). */
  args: Record<string, Field>;
  results: Record<string, Field>;
  run(lv: Libvirt, args: Values, host: string): Promise<Values>;
}

const NAME = (what: string): Field => ({ type: "string", doc: `the ${what}'s name on the host`, required: true });

function missing(host: string, what: string, listing: string): KvmError {
  return new KvmError("not-found", `there is no ${what} on this host`, { host, fix: `${listing} lists what the host has` });
}

export const LOOKUPS: Record<string, Lookup> = {
  getDomain: {
    doc: "A domain (VM) of the host, by name: its identity, state, size and NICs",
    args: { name: NAME("domain") },
    results: {
      uuid: { type: "string", doc: "its UUID", required: true },
      name: { type: "string", doc: "its name", required: true },
      state: { type: "string", doc: 'libvirt\'s state: "running", "shut off", …', required: true },
      running: { type: "boolean", doc: "whether it runs", required: true },
      autostart: { type: "boolean", doc: "started with the host", required: true },
      vcpu: { type: "integer", doc: "its vCPUs now", required: true },
      memory: { type: "integer", doc: "its memory now, MiB", required: true },
      firmware: { type: "string", doc: '"bios" or "uefi"', required: true },
      macs: { type: "string[]", doc: "the MAC of each NIC, in the definition's order", required: true },
    },
    async run(lv, args, host) {
      const dom = await unlessMissing(lv.lookupDomain(String(args.name)), "NO_DOMAIN");
      if (!dom) throw missing(host, `domain ${String(args.name)}`, "virsh list --all");
      const d = parseDomainXml(await lv.domainXml(dom, 0));
      const state = await lv.domainState(dom);
      const running = state.state === 1;
      const defined = running ? parseDomainXml(await lv.domainXml(dom, DomainXmlFlags.INACTIVE)) : d;
      return {
        uuid: d.uuid,
        name: d.name,
        state: describeState(state),
        running,
        autostart: await lv.domainAutostart(dom),
        vcpu: d.vcpu,
        memory: defined.memoryMiB,
        firmware: d.firmware,
        macs: d.interfaces.map((i) => i.mac),
      };
    },
  },
  getNetwork: {
    doc: "A libvirt network of the host, by name",
    args: { name: NAME("network") },
    results: {
      uuid: { type: "string", doc: "its UUID", required: true },
      name: { type: "string", doc: "its name", required: true },
      mode: { type: "string", doc: '"nat", "isolated", "route", "bridge", …', required: true },
      bridge: { type: "string", doc: "its bridge device" },
      addresses: { type: "string[]", doc: "its gateway addresses with prefix", required: true },
      active: { type: "boolean", doc: "whether it runs", required: true },
      autostart: { type: "boolean", doc: "started with the host", required: true },
    },
    async run(lv, args, host) {
      const net = await unlessMissing(lv.lookupNetwork(String(args.name)), "NO_NETWORK");
      if (!net) throw missing(host, `network ${String(args.name)}`, "virsh net-list --all");
      const d = parseNetworkXml(await lv.networkXml(net));
      return {
        uuid: d.uuid,
        name: d.name,
        mode: d.mode,
        ...(d.bridge ? { bridge: d.bridge } : {}),
        addresses: d.addresses,
        active: await lv.networkIsActive(net),
        autostart: await lv.networkAutostart(net),
      };
    },
  },
  getVolume: {
    doc: "A volume of a pool, by name. Its format is libvirt's reading of the file's header, which a guest may have written: declare a disk's format yourself",
    args: { name: NAME("volume"), pool: { type: "string", doc: 'its pool (default "default")' } },
    results: {
      name: { type: "string", doc: "its name", required: true },
      pool: { type: "string", doc: "its pool", required: true },
      key: { type: "string", doc: "libvirt's key (a dir pool's: the path), the ID pulumi import takes", required: true },
      path: { type: "string", doc: "its file on the host", required: true },
      capacityBytes: { type: "number", doc: "its virtual size as libvirt reads it", required: true },
      format: { type: "string", doc: "libvirt's reading of its header (never trusted by pulumi-kvm)" },
    },
    async run(lv, args, host) {
      const poolName = String(args.pool ?? "default");
      const pool = await unlessMissing(lv.lookupPool(poolName), "NO_STORAGE_POOL");
      const vol = pool && (await unlessMissing(lv.lookupVolume(pool, String(args.name)), "NO_STORAGE_VOL"));
      if (!vol) throw missing(host, `volume ${poolName}/${String(args.name)}`, `virsh vol-list --pool ${poolName}`);
      const d = await describeVolume(lv, vol);
      return { name: vol.name, pool: vol.pool, key: vol.key, path: d.path, capacityBytes: d.capacityBytes, ...(d.format ? { format: d.format } : {}) };
    },
  },
  getStoragePool: {
    doc: "A storage pool of the host, by name: its directory and free space",
    args: { name: NAME("storage pool") },
    results: {
      uuid: { type: "string", doc: "its UUID", required: true },
      name: { type: "string", doc: "its name", required: true },
      type: { type: "string", doc: 'its type ("dir", …)', required: true },
      path: { type: "string", doc: "its directory on the host", required: true },
      state: { type: "string", doc: 'its state ("running", …)', required: true },
      capacityBytes: { type: "number", doc: "its size", required: true },
      availableBytes: { type: "number", doc: "its free space", required: true },
    },
    async run(lv, args, host) {
      const pool = await unlessMissing(lv.lookupPool(String(args.name)), "NO_STORAGE_POOL");
      if (!pool) throw missing(host, `storage pool ${String(args.name)}`, "virsh pool-list --all");
      const [d, info] = [parsePoolXml(await lv.poolXml(pool)), await lv.poolInfo(pool)];
      return {
        uuid: d.uuid,
        name: d.name,
        type: d.type,
        path: d.path,
        state: POOL_STATES[info.state] ?? String(info.state),
        capacityBytes: Number(info.capacity),
        availableBytes: Number(info.available),
      };
    },
  },
  getHost: {
    doc: "The host itself: its libvirt and qemu versions, CPUs, memory, and the free space of each running pool",
    args: {},
    results: {
      hostname: { type: "string", doc: "its host name", required: true },
      libvirtVersion: { type: "string", doc: 'libvirt\'s version, "11.7.0"', required: true },
      hypervisorVersion: { type: "string", doc: "the hypervisor's (qemu's) version, \"10.0.2\"", required: true },
      cpuModel: { type: "string", doc: 'the CPU architecture libvirt reports ("x86_64")', required: true },
      cpus: { type: "integer", doc: "its CPUs", required: true },
      memoryBytes: { type: "number", doc: "its memory", required: true },
      pools: { type: "PoolSpace[]", doc: "each running pool and its free space", required: true },
    },
    async run(lv) {
      const [lib, hv, hostname, node] = await Promise.all([lv.libVersion(), lv.hypervisorVersion(), lv.hostname(), lv.nodeInfo()]);
      const pools = [];
      for (const pool of await lv.listPools()) {
        const info = await lv.poolInfo(pool);
        if (info.state === 2) pools.push({ name: pool.name, capacityBytes: Number(info.capacity), availableBytes: Number(info.available) });
      }
      return {
        hostname,
        libvirtVersion: formatVersion(lib),
        hypervisorVersion: formatVersion(hv),
        cpuModel: node.model,
        cpus: node.cpus,
        memoryBytes: Number(node.memoryKiB) * 1024,
        pools,
      };
    },
  },
};

/** Runs a lookup on `host` over the shared connection. */
export async function runLookup(
  access: { run<T>(host: HostConfig, fn: (lv: Libvirt) => Promise<T>): Promise<T> },
  token: string,
  host: HostConfig,
  args: Values,
): Promise<Values> {
  const lookup = LOOKUPS[token];
  if (!lookup) throw new Error(`pulumi-kvm: no function ${token} (there are ${Object.keys(LOOKUPS).join(", ")})`);
  for (const [k, f] of Object.entries(lookup.args)) {
    if (f.required && (typeof args[k] !== "string" || !args[k])) {
      throw new KvmError("permanent", `${token}: ${k} is required`, { host: hostLabel(host), property: k, fix: `Give ${k}: ${f.doc}` });
    }
  }
  for (const k of Object.keys(args)) {
    if (k !== "host" && !(k in lookup.args)) {
      throw new KvmError("permanent", `${token} takes no argument "${k}"`, {
        host: hostLabel(host),
        property: k,
        fix: `Its arguments are host${Object.keys(lookup.args)
          .map((a) => `, ${a}`)
          .join("")}`,
      });
    }
  }
  return access.run(host, (lv) => lookup.run(lv, args, hostLabel(host)));
}

/** A lookup from a program's own process (the TypeScript functions): its connection closes after it, so the program can end. */
export async function lookupOnce(token: string, host: HostConfig, args: Values): Promise<Values> {
  const pool = new HostPool();
  try {
    return toEngine(await runLookup(pool, token, host, args));
  } finally {
    await pool.closeAll();
  }
}
