// The error taxonomy. Every error leaving the provider has a class, a message naming
// the host, the object and the fix, and libvirt's code name when libvirt said it.
// `classify` is the one place that decides.
import { GONE_CODES } from "./kinds/objects";
import { LibvirtCodeName, LibvirtError, RpcAbortError, RpcProtocolError, RpcTransportError } from "./libvirt/errors";
import { ErrorClass, isDecided, KvmError } from "./kvm-error";

export { KvmError } from "./kvm-error";
export type { ErrorClass, KvmErrorOptions } from "./kvm-error";

export interface Classified {
  errorClass: ErrorClass;
  message: string;
  codeName?: string;
}

/** The class of a libvirt code this table does not list: a retry may help. */
export const UNLISTED_CODE_CLASS: ErrorClass = "transient";

const libvirtClasses: Partial<Record<LibvirtCodeName, ErrorClass>> = {
  // every code that means an object of some kind is gone (kinds.ts)
  ...Object.fromEntries(GONE_CODES.map((code) => [`VIR_ERR_${code}`, "not-found" as const])),
  VIR_ERR_NO_DOMAIN_METADATA: "not-found",
  VIR_ERR_NO_SECRET: "not-found",
  VIR_ERR_NO_NODE_DEVICE: "not-found",
  VIR_ERR_DOM_EXIST: "conflict",
  VIR_ERR_NETWORK_EXIST: "conflict",
  VIR_ERR_STORAGE_VOL_EXIST: "conflict",
  VIR_ERR_OPERATION_INVALID: "conflict",
  VIR_ERR_MULTIPLE_DOMAINS: "conflict",
  VIR_ERR_OPERATION_TIMEOUT: "timeout",
  VIR_ERR_AGENT_UNRESPONSIVE: "timeout",
  VIR_ERR_RESOURCE_BUSY: "transient",
  VIR_ERR_RPC: "transient",
  VIR_ERR_NO_CONNECT: "unreachable",
  VIR_ERR_AUTH_FAILED: "permanent",
  VIR_ERR_AUTH_UNAVAILABLE: "permanent",
  VIR_ERR_ACCESS_DENIED: "permanent",
  VIR_ERR_OPERATION_DENIED: "permanent",
  VIR_ERR_INVALID_ARG: "permanent",
  VIR_ERR_XML_ERROR: "permanent",
  VIR_ERR_XML_DETAIL: "permanent",
  VIR_ERR_XML_INVALID_SCHEMA: "permanent",
  VIR_ERR_CONFIG_UNSUPPORTED: "permanent",
  VIR_ERR_ARGUMENT_UNSUPPORTED: "permanent",
  VIR_ERR_NO_SUPPORT: "permanent",
  VIR_ERR_OPERATION_UNSUPPORTED: "permanent",
  VIR_ERR_INVALID_MAC: "permanent",
  VIR_ERR_CPU_INCOMPATIBLE: "permanent",
  // libvirt uses these for anything from a full disk to a bad setting: a retry of the
  // same request rarely helps, so the user is told to act
  VIR_ERR_OPERATION_FAILED: "permanent",
  VIR_ERR_SYSTEM_ERROR: "permanent",
  VIR_ERR_INTERNAL_ERROR: "permanent",
};

/** Decides the class of any error the provider may see. */
export function classify(err: unknown): Classified {
  if (isDecided(err)) return { errorClass: err.errorClass, message: err.message, codeName: err.codeName };
  if (err instanceof LibvirtError) {
    const listed = (libvirtClasses as Record<string, ErrorClass | undefined>)[err.codeName];
    return { errorClass: listed ?? UNLISTED_CODE_CLASS, message: err.message, codeName: err.codeName };
  }
  if (err instanceof RpcAbortError) return { errorClass: "timeout", message: err.message };
  if (err instanceof RpcTransportError) return { errorClass: "unreachable", message: err.message };
  if (err instanceof RpcProtocolError) return { errorClass: "permanent", message: err.message };
  const e = err as NodeJS.ErrnoException | undefined;
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return { errorClass: "timeout", message: e.message };
  if (e?.code && ["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"].includes(e.code)) {
    return { errorClass: "unreachable", message: e.message };
  }
  return { errorClass: "transient", message: e instanceof Error ? e.message : String(err) };
}

/** True when the error says the link itself is gone (only these drop a pooled connection). */
export function isTransportFailure(err: unknown): boolean {
  return err instanceof RpcTransportError;
}

/** Wraps any error with the host and what was being done; KvmErrors already say so. */
export function explain(err: unknown, host: string, what: string): KvmError {
  if (err instanceof KvmError) return err;
  const c = classify(err);
  return new KvmError(c.errorClass, `${what}: ${c.message}`, { host, codeName: c.codeName, cause: err });
}

/** True when the SSH server refused the login itself (not the network, not the host key). */
export function isLoginRefused(err: unknown): boolean {
  return (err as { loginRefused?: boolean } | undefined)?.loginRefused === true;
}
