// pulumi-kvm/provider: the implementation the serialized shim requires at run time.
// Module state (the connection pool) is shared by every resource in the process.
export { check, create, del as delete, diff, read, update } from "./resources/dispatch";
export { imageProvider as image } from "./resources/image";
export { volumeProvider as volume } from "./resources/volume";
export { domainProvider as domain } from "./resources/domain";
export { hostPool, HostPool } from "./pool/host-pool";
export { checkHost } from "./health/check";
export { classify, KvmError } from "./errors";
export type { ErrorClass } from "./errors";
export type { HostConfig } from "./ssh/host";
