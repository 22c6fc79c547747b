// pulumi-kvm/provider: the implementation the serialized shim requires at run time.
// Module state (the connection pool) is shared by every resource in the process.
// Only the dispatch and the error types are public: their declarations reach no
// dependency's types, so consumers type-check with skipLibCheck off.
export { check, create, del as delete, diff, lookup, read, update } from "./resources/dispatch";
export { lookupOnce } from "./resources/lookups";
export { classify, KvmError } from "./errors";
export type { ErrorClass } from "./errors";
