// A plain `pulumi preview` of a program whose inputs come from other resources: any input
// may be unknown then. Every kind's check, as the engine calls it, passes with each input
// unknown in turn, and each field of its structured values (a disk, a NIC, a rule): an
// unknown is never taken for a value (a raw disk's base once was).
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import type { Kind } from "../../provider/kinds";
import { UNKNOWN } from "../../provider/resources/unknown";
import { DECLARATIONS, OBJECT_TYPES } from "../../provider/kinds";
import { check } from "../../provider/resources/dispatch";
import { labHost } from "../support/hosts";
import { labEnv } from "../support/lab";
import { virsh } from "../support/virsh";

describe("unknown inputs in a preview", function () {
  this.timeout(120_000);
  const tag = `unk${process.pid}`;
  const base = `${tag}-base.qcow2`;
  const data = `${tag}-data.raw`;
  before(() => {
    virsh(["vol-create-as", labEnv().pool, base, "16M", "--format", "qcow2"]);
    virsh(["vol-create-as", labEnv().pool, data, "8M", "--format", "raw"]);
  });
  after(() => {
    virsh(["vol-delete", "--pool", labEnv().pool, base]);
    virsh(["vol-delete", "--pool", labEnv().pool, data]);
  });

  /** A valid program's inputs of each kind, on the lab. */
  const valid = (): Record<Kind, Record<string, unknown>> => {
    const lab = labEnv();
    const host = labHost(lab);
    return {
      Image: {
        host,
        resourceName: `${tag}-image`,
        source: { path: lab.image, sha256: crypto.createHash("sha256").update(fs.readFileSync(lab.image)).digest("hex") },
        format: "qcow2",
      },
      Volume: { host, resourceName: `${tag}-volume`, baseImage: base, sourceFormat: "qcow2", capacity: "32MiB" },
      Domain: {
        host,
        resourceName: `${tag}-vm`,
        type: "qemu",
        memory: "256MiB",
        disks: [
          { volume: base, format: "qcow2", bootOrder: 1, cache: "none" },
          { volume: data, format: "raw", serial: "data" },
        ],
        networkInterfaces: [{ network: lab.network, mac: "52:54:00:12:34:56", filter: `${tag}-filter` }],
        cloudInit: { hostname: "vm", userData: "#cloud-config\n" },
        waitForIp: { timeout: "2m", source: "lease", family: "ipv4" },
      },
      StoragePool: { host, resourceName: `${tag}-pool`, path: `/var/lib/libvirt/${tag}-pool` },
      Network: {
        host,
        resourceName: `${tag}-net`,
        mode: "isolated",
        addresses: ["192.168.174.1/24"],
        dhcp: { start: "192.168.174.10", end: "192.168.174.20", hosts: [{ mac: "52:54:00:12:34:56", ip: "192.168.174.10", name: "vm" }] },
      },
      Snapshot: { host, resourceName: `${tag}-snap`, domain: `${tag}-vm`, domainUuid: crypto.randomUUID(), description: "d", memory: false },
      NetworkFilter: {
        host,
        resourceName: `${tag}-filter`,
        rules: [{ action: "accept", direction: "in", protocol: "tcp", ports: "22", cidr: "10.0.0.0/8", priority: 100 }],
      },
    };
  };

  /** Each variant of a kind's valid inputs with one input it gives, or one field of its first structured value, unknown. */
  function variants(kind: Kind, inputs: Record<string, unknown>): [string, Record<string, unknown>][] {
    const out: [string, Record<string, unknown>][] = [];
    for (const [name, p] of Object.entries<{ type: string; bySdk?: boolean }>(DECLARATIONS[kind].properties)) {
      // an input the program does not give is not unknown in its preview
      if (p.bySdk || !(name in inputs)) continue;
      out.push([name, { ...inputs, [name]: UNKNOWN }]);
      const value = inputs[name];
      const type = p.type
        .replace(/\s*\(.*\)$/, "")
        .split(" | ")
        .map((t) => t.replace(/\[\]$/, ""))
        .find((t) => t in OBJECT_TYPES);
      const items = Array.isArray(value) ? value : [value];
      if (!type) continue;
      items.forEach((one, i) => {
        if (!one || typeof one !== "object") return;
        for (const field of Object.keys(one)) {
          const changed = { ...(one as Record<string, unknown>), [field]: UNKNOWN };
          const list = items.map((x, j) => (j === i ? changed : x));
          out.push([`${name}${Array.isArray(value) ? `[${i}]` : ""}.${field}`, { ...inputs, [name]: Array.isArray(value) ? list : changed }]);
        }
      });
    }
    return out;
  }

  for (const kind of Object.keys(DECLARATIONS) as Kind[]) {
    it(`${kind}: check passes with each input, and each field of a structured one, unknown`, async () => {
      const failing: string[] = [];
      const all = valid();
      const known = await check(undefined, { ...all[kind], kvmKind: kind });
      assert.deepStrictEqual(known.failures, [], "the valid inputs pass");
      // a blank raw Volume of the same program as a disk: its recorded base is unknown until it is made
      const extra: [string, Record<string, unknown>][] =
        kind === "Domain"
          ? [["disks[1].backing", { ...all.Domain, disks: [(all.Domain.disks as object[])[0], { volume: data, format: "raw", backing: UNKNOWN }] }]]
          : [];
      for (const [what, news] of [...variants(kind, all[kind]), ...extra]) {
        const r = await check(undefined, { ...news, kvmKind: kind });
        if (r.failures.length) failing.push(`${what} unknown: ${r.failures.map((f) => f.reason).join("; ")}`);
      }
      assert.deepStrictEqual(failing, []);
    });
  }
});
