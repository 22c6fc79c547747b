// What the resources use of the layers below, passed in rather than imported: the
// host pool (connections and probes) and the memoised health check. The process
// context is the one pool every resource, probe and CLI call shares; a unit test gives
// its own to reach a state without a host.
import { memoisedHealth } from "../health/memo";
import { HostAccess, hostPool } from "../pool/host-pool";

export type { HostAccess };

export interface ResourceContext {
  pool: HostAccess;
  health: typeof memoisedHealth;
}

export const processContext: ResourceContext = { pool: hostPool, health: memoisedHealth };
