// The error a layer raises when it decides the class itself (bad input, a conflict it
// found): apart from the classifier (errors.ts), so the lowest layers can raise it.

export type ErrorClass = "transient" | "permanent" | "not-found" | "conflict" | "timeout" | "unreachable";

export interface KvmErrorOptions {
  host?: string;
  /** The input property the error is about, e.g. "source.sha256". */
  property?: string;
  fix?: string;
  codeName?: string;
  cause?: unknown;
}

/** An error that carries a class decided where it was raised (KvmError, a dial failure). */
interface DecidedError extends Error {
  errorClass: ErrorClass;
  codeName?: string;
}

export function isDecided(err: unknown): err is DecidedError {
  return err instanceof Error && typeof (err as Partial<DecidedError>).errorClass === "string";
}

/** An error whose class was decided where it was raised (bad input, a local failure). */
export class KvmError extends Error {
  readonly errorClass: ErrorClass;
  readonly host?: string;
  readonly property?: string;
  readonly fix?: string;
  readonly codeName?: string;

  constructor(errorClass: ErrorClass, message: string, opts: KvmErrorOptions = {}) {
    super(composeMessage(message, opts), { cause: opts.cause });
    this.name = "KvmError";
    this.errorClass = errorClass;
    this.host = opts.host;
    this.property = opts.property;
    this.fix = opts.fix;
    this.codeName = opts.codeName;
  }
}

function composeMessage(message: string, opts: KvmErrorOptions): string {
  let m = message;
  if (opts.property && !m.includes(opts.property)) m = `${opts.property}: ${m}`;
  if (opts.host && !m.includes(opts.host)) m = `${opts.host}: ${m}`;
  if (opts.codeName && !m.includes(opts.codeName)) m += ` (${opts.codeName})`;
  if (opts.fix) m += `. ${opts.fix}`;
  return m;
}
