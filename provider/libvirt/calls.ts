// Every libvirt call pulumi-kvm makes, one row each: the procedure of libvirt's REMOTE
// program (number, public API name, codecs: remote_protocol.x), how the seam method's
// arguments become the call's and its reply the method's result, and what a trace line
// shows. The Libvirt interface (api.ts), its RPC implementation (rpc-libvirt.ts) and
// the tracing decorator (tracing.ts) are all derived from this table: a new call is a
// new row. A row is a `read` or a `write`: after a broken link the pool repeats a read on
// a fresh connection, but never a write that may have reached the host.
import { nonnullString, remoteString } from "../rpc/types";
import { fixedArray, int, uhyper, struct } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { flags, noArgs, none, read } from "./call-rows";
import { domainCalls } from "./calls-domain";
import { migrationCalls } from "./calls-migration";
import { networkCalls } from "./calls-network";
import { snapshotCalls } from "./calls-snapshot";
import { storageCalls } from "./calls-storage";

export type { Call, InboundCall, StreamCall, Trace } from "./call-rows";
export { Impact, MetadataType } from "./call-rows";

export const calls = {
  // the daemon
  libVersion: read(procedure(157, "virConnectGetLibVersion", none, struct({ libVer: uhyper })), noArgs, (r) => r.libVer, {
    ids: () => ({}),
    result: (v) => ({ version: v }),
  }),
  hostname: read(procedure(59, "virConnectGetHostname", none, struct({ hostname: nonnullString })), noArgs, (r) => r.hostname, {
    ids: () => ({}),
    result: (h) => ({ hostname: h }),
  }),
  hypervisorVersion: read(procedure(4, "virConnectGetVersion", none, struct({ hvVer: uhyper })), noArgs, (r) => r.hvVer, {
    ids: () => ({}),
    result: (v) => ({ version: v }),
  }),
  /** The host's CPUs and memory (virNodeGetInfo; `model` is a char[32], one word per char). */
  nodeInfo: read(
    procedure(
      6,
      "virNodeGetInfo",
      none,
      struct({ model: fixedArray(int, 32), memory: uhyper, cpus: int, mhz: int, nodes: int, sockets: int, cores: int, threads: int }),
    ),
    noArgs,
    (r) => ({
      model: Buffer.from(r.model.map((c) => c & 0xff))
        .toString("latin1")
        .replace(/\0.*$/s, ""),
      memoryKiB: r.memory,
      cpus: r.cpus,
      mhz: r.mhz,
    }),
    { ids: () => ({}), result: (n) => ({ cpus: n.cpus, memoryKiB: n.memoryKiB }) },
  ),
  /** What the hypervisor offers a domain of this virt type and machine (firmware, TPM backends, devices), as XML. */
  domainCapabilities: read(
    procedure(
      342,
      "virConnectGetDomainCapabilities",
      struct({ emulatorbin: remoteString, arch: remoteString, machine: remoteString, virttype: remoteString, flags }),
      struct({ capabilities: nonnullString }),
    ),
    (virttype: string, machine?: string) => ({ emulatorbin: null, arch: "x86_64", machine: machine ?? null, virttype, flags: 0 }),
    (r) => r.capabilities,
    { ids: (virttype, machine) => ({ virttype, machine: machine ?? "default" }), xml: (_a, x) => x },
  ),
  ...storageCalls,
  ...domainCalls,
  ...migrationCalls,
  ...networkCalls,
  ...snapshotCalls,
};

export type Calls = typeof calls;
