// Messages about what the stack recorded: a login refused with the recorded credentials,
// an object under a recorded name that is not the one the stack made.
import { explain, isLoginRefused, KvmError } from "../errors";
import { warn } from "../log";

/**
 * explain() for refresh and destroy, which log in with what the stack recorded: when
 * that login is refused after a key rotation, say how to record the new one.
 */
export function explainRecorded(err: unknown, host: string, what: string): KvmError {
  if (!isLoginRefused(err)) return explain(err, host, what);
  return new KvmError("permanent", `${what}: ${(err as Error).message}`, {
    host,
    cause: err,
    fix: "refresh and destroy log in with the credentials the stack recorded at the last successful update. If you changed them in the program, run `pulumi up` first: it records the new credentials and changes nothing on the host. Or authorize the old key again until then",
  });
}

/** Says that an object of a recorded name is someone else's and was left alone. */
export function leftAlone(host: string, what: string, action: string): void {
  warn(`${host}: ${what} is not the one this stack made (its identity differs: removed and made again outside Pulumi?); ${action} left it alone`);
}
