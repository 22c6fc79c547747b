// The guest's serial console while a create or update waits for it: read through libvirt
// on the pooled connection from the first byte (the VM starts paused, the console opens,
// then it runs), only its tail kept (bounded memory), made printable (a guest prints what
// it likes). Never logged and never stored: a failed wait's error quotes its last lines.
import { DomainRef, isLibvirtError, Libvirt, StartFlags } from "../../libvirt/api";

/** Lines of the console a failed wait quotes. */
export const CONSOLE_LINES = 25;
/** Bytes of the console's end kept: 25 long lines, whatever the guest prints before them. */
const TAIL_BYTES = 16 * 1024;

/** What a guest prints when it cannot go on, and why: no address can come after it. */
const DEAD_ENDS: [RegExp, string][] = [
  [/Kernel panic - not syncing/, "its kernel panicked"],
  [
    /BdsDxe: No bootable option or device was found/,
    'its UEFI firmware found nothing it may boot (with secureBoot, a bootloader the enrolled keys do not sign is refused: "Access Denied" above)',
  ],
];

/**
 * A terminal's text made plain: escape sequences (colours, cursor moves, titles), control
 * and bidirectional-override characters dropped, line ends as "\n", so a guest cannot
 * paint or rewrite the user's terminal through an error message or `pulumi-kvm console`.
 */
/* eslint-disable no-control-regex -- matching control characters is this function's job */
export function printable(text: string): string {
  return text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)?/g, "")
    .replace(/\x1b[@-_]?/g, "")
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/\r\n|\r/g, "\n")
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
}
/* eslint-enable no-control-regex */

/** The non-empty lines of a console's text, made plain. */
export function printableLines(text: string): string[] {
  return printable(text)
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.length > 0);
}

/**
 * cloud-init prints the passwords it generated (`chpasswd` with RANDOM) to the console, one
 * `user:password` line each after this header: they are redacted before anything is kept.
 */
const GENERATED_PASSWORDS = "Set the following 'random' passwords";
const PASSWORD_LINE = /^(\s*[^\s:]+:)\S.*$/;
export const REDACTED = "<redacted by pulumi-kvm>";

/** The end of a console: the newest bytes, at most about TAIL_BYTES of them, generated passwords redacted. */
export class ConsoleTail {
  private chunks: Buffer[] = [];
  private size = 0;
  /** The last line, until its newline comes. */
  private partial = Buffer.alloc(0);
  private inPasswords = false;

  push(chunk: Buffer): void {
    let data = Buffer.concat([this.partial, chunk]);
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a)) {
      this.keep(this.redacted(data.subarray(0, nl + 1)));
      data = data.subarray(nl + 1);
    }
    this.partial = Buffer.from(data);
  }

  /** A whole line as it may be kept: a password line after cloud-init's header loses its password. */
  private redacted(line: Buffer): Buffer {
    const text = line.toString("latin1");
    if (this.inPasswords) {
      const m = PASSWORD_LINE.exec(text.trimEnd());
      if (m) return Buffer.from(`${m[1]}${REDACTED}\n`);
      this.inPasswords = false;
    }
    if (text.includes(GENERATED_PASSWORDS)) this.inPasswords = true;
    return line;
  }

  private keep(line: Buffer): void {
    this.chunks.push(line);
    this.size += line.length;
    if (this.size > 2 * TAIL_BYTES) {
      const all = Buffer.concat(this.chunks);
      this.chunks = [all.subarray(all.length - TAIL_BYTES)];
      this.size = TAIL_BYTES;
    }
  }

  private text(encoding: BufferEncoding): string {
    // a password line still being printed shows nothing of it
    const partial = this.inPasswords && PASSWORD_LINE.test(this.partial.toString("latin1")) ? Buffer.alloc(0) : this.partial;
    return Buffer.concat([...this.chunks, partial]).toString(encoding);
  }

  lines(n = CONSOLE_LINES): string[] {
    return printableLines(this.text("utf8")).slice(-n);
  }

  /** Why the guest cannot go on, when its kept end shows it (a kernel panic also when set to reboot: the wait gives up while it is in view). */
  deadEnd(): string | undefined {
    const text = this.text("latin1");
    return DEAD_ENDS.find(([printed]) => printed.test(text))?.[1];
  }
}

export interface ConsoleWatch {
  tail: ConsoleTail;
  /** Why the console could not be read (another client holds it), if it could not. */
  unavailable?: string;
  close(): void;
}

/** Reads a running domain's console from now on; a console libvirt refuses is reported, not thrown. */
export async function watchConsole(lv: Libvirt, dom: DomainRef): Promise<ConsoleWatch> {
  const tail = new ConsoleTail();
  try {
    const stream = await lv.openConsole(dom, (chunk) => tail.push(chunk));
    return { tail, close: () => stream.close() };
  } catch (err) {
    if (!isLibvirtError(err)) throw err;
    return { tail, unavailable: err.message, close: () => undefined };
  }
}

/** Starts the domain with its console read from the first byte: paused, the console opened, then resumed. */
export async function startWatched(lv: Libvirt, dom: DomainRef): Promise<ConsoleWatch> {
  await lv.startDomain(dom, StartFlags.PAUSED);
  let watch: ConsoleWatch | undefined;
  try {
    watch = await watchConsole(lv, dom);
  } finally {
    await lv.resumeDomain(dom);
  }
  return watch;
}

/** The console part of a failed wait's error: its last lines, or why there are none. */
export function consoleReport(watch: ConsoleWatch | undefined): string {
  if (!watch) return "";
  if (watch.unavailable) return `\nits console could not be read: ${watch.unavailable}`;
  const lines = watch.tail.lines();
  if (!lines.length) return "\nits console printed nothing";
  return `\nthe last ${lines.length} lines of its console:\n${lines.map((l) => `  | ${l}`).join("\n")}`;
}
