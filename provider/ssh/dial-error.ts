// Dial failures, tagged with the stage that failed and a hint for the fix.
import type { ErrorClass } from "../errors";

export type DialStage = "ssh-material" | "tcp" | "ssh-handshake" | "libvirt-connect";

export class DialError extends Error {
  readonly stage: DialStage;
  readonly host: string;
  readonly hint: string | undefined;
  readonly errorClass: ErrorClass;
  /** The server refused the login (key, agent or user), as opposed to any other failure. */
  readonly loginRefused: boolean;

  constructor(stage: DialStage, host: string, message: string, opts: { hint?: string; cause?: unknown; errorClass: ErrorClass; loginRefused?: boolean }) {
    super(`${host}: ${stage} failed: ${message}${opts.hint ? `. ${opts.hint}` : ""}`, { cause: opts.cause });
    this.name = "DialError";
    this.stage = stage;
    this.host = host;
    this.hint = opts.hint;
    this.errorClass = opts.errorClass;
    this.loginRefused = opts.loginRefused ?? false;
  }
}
