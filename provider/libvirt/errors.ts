// The seam's error type and the one predicate every layer above uses to ask what
// libvirt said: isLibvirtError(err, "NO_DOMAIN").
import { LibvirtError } from "../rpc/errors";
import type { ERROR_CODE_NAMES } from "../rpc/error-codes";

export { LibvirtError };

/** A libvirt error code name without its VIR_ERR_ prefix, e.g. "NO_DOMAIN". */
type WithoutPrefix<N> = N extends `VIR_ERR_${infer C}` ? C : never;
export type LibvirtCode = WithoutPrefix<(typeof ERROR_CODE_NAMES)[number]>;

/** True when `err` is libvirt's answer and, given codes, one of them. */
export function isLibvirtError(err: unknown, ...codes: LibvirtCode[]): err is LibvirtError {
  if (!(err instanceof LibvirtError)) return false;
  return codes.length === 0 || codes.some((c) => err.codeName === `VIR_ERR_${c}`);
}

/** A lookup's result, or undefined when libvirt answers that the object does not exist (`code`). */
export async function unlessMissing<T>(lookup: Promise<T>, code: LibvirtCode): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (err) {
    if (isLibvirtError(err, code)) return undefined;
    throw err;
  }
}
export { RpcAbortError, RpcProtocolError, RpcTransportError } from "../rpc/errors";

/** A libvirt error code name as libvirt spells it, e.g. "VIR_ERR_NO_DOMAIN". */
export type LibvirtCodeName = (typeof ERROR_CODE_NAMES)[number];
