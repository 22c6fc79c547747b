// Errors raised by the protocol layer. Classification for users happens in
// provider/errors.ts; here they only carry what happened.
import { errorCodeName, errorDomainName } from "./error-codes";
import { RemoteError } from "./types";

/** libvirt answered with an error (REPLY or STREAM with status ERROR). */
export class LibvirtError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly domain: number;
  readonly domainName: string;
  readonly level: number;
  readonly detail: RemoteError;
  /** The public API that failed, e.g. virStorageVolLookupByName. */
  readonly api: string;

  constructor(err: RemoteError, api: string) {
    const codeName = errorCodeName(err.code);
    super(`${err.message ?? "libvirt error"} (${codeName})`);
    this.name = "LibvirtError";
    this.code = err.code;
    this.codeName = codeName;
    this.domain = err.domain;
    this.domainName = errorDomainName(err.domain);
    this.level = err.level;
    this.detail = err;
    this.api = api;
  }
}

/** The byte stream to libvirtd closed or broke; every pending call fails with this. */
export class RpcTransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RpcTransportError";
  }
}

/** A call made after the link had closed: nothing of it reached the daemon. */
export class RpcNotSentError extends RpcTransportError {
  constructor(api: string, closedWith: Error) {
    super(`${api} was not sent: ${closedWith.message}`, { cause: closedWith });
    this.name = "RpcNotSentError";
  }
}

/** The caller's AbortSignal fired; the call's serial is forgotten, the link stays. */
export class RpcAbortError extends Error {
  constructor(api: string, reason?: unknown) {
    super(`${api} abandoned: ${reason instanceof Error ? reason.message : String(reason ?? "aborted")}`, { cause: reason });
    this.name = "RpcAbortError";
  }
}

/** A call's reply did not come within the client's call bound (the link may be fine). */
export class CallTimeout extends Error {
  constructor(
    readonly api: string,
    ms: number,
  ) {
    super(`no reply within ${ms / 1000} s (PULUMI_KVM_CALL_TIMEOUT): libvirtd answers keepalives, so the call itself is stuck, e.g. behind a hung qemu`);
    this.name = "CallTimeout";
  }
}

/** The peer sent something this client cannot make sense of. */
export class RpcProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RpcProtocolError";
  }
}
