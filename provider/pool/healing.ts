// A Libvirt that outlives a broken link. Each call takes the host's live connection
// (redialling once the link died), and a call the break interrupted is repeated once on
// a fresh connection when repeating is safe: a read, or a call that never left this
// process. A write that may have reached the host is never repeated blindly: its outcome
// is unknown, and the error says so, naming the call and its object.
import { isTransportFailure } from "../errors";
import type { Libvirt } from "../libvirt/api";
import { Call, calls } from "../libvirt/calls";
import { splitSignal } from "../libvirt/rpc-libvirt";
import { RpcNotSentError } from "../rpc/errors";

/** What the view needs of a connection (pool/connection.ts's Connection). */
export interface Linked {
  libvirt: Libvirt;
}

/** How the view reaches the host: the pool's live connection, and forgetting a broken one. */
export interface Links<C extends Linked = Linked> {
  live(signal?: AbortSignal): Promise<C>;
  broken(conn: C): void;
}

/** A write whose request may have reached the host before the link broke. */
export class OutcomeUnknown extends Error {
  readonly errorClass = "transient" as const;
  /** What happened, without the advice: a caller that has looked on the host says what it found instead. */
  readonly happened: string;
  constructor(api: string, object: string, cause: Error) {
    const happened = `the link broke after ${api}${object ? ` (${object})` : ""} was sent, so whether it took effect is unknown (${cause.message})`;
    super(`${happened}; look on the host before running pulumi up again`, { cause });
    this.name = "OutcomeUnknown";
    this.happened = happened;
  }
}

type AnyCall = Call<unknown[], unknown, unknown, unknown>;

function describe(row: AnyCall, args: unknown[]): string {
  return Object.entries(row.trace.ids(...args))
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(", ");
}

export function healingLibvirt<C extends Linked>(links: Links<C>): Libvirt {
  /** Runs `use` on the live connection; a broken link is forgotten before the error goes on. */
  async function once<T>(signal: AbortSignal | undefined, use: (lv: Libvirt) => Promise<T>): Promise<T> {
    const conn = await links.live(signal);
    try {
      return await use(conn.libvirt);
    } catch (err) {
      if (isTransportFailure(err)) links.broken(conn);
      throw err;
    }
  }
  const out: Record<string, unknown> = {
    uploadVolume: (...given: Parameters<Libvirt["uploadVolume"]>) => once(given[2]?.signal, (lv) => lv.uploadVolume(...given)),
    async *downloadVolume(...given: Parameters<Libvirt["downloadVolume"]>) {
      const conn = await links.live(given[1]?.signal);
      try {
        yield* conn.libvirt.downloadVolume(...given);
      } catch (err) {
        if (isTransportFailure(err)) links.broken(conn);
        throw err;
      }
    },
    // a console is opened once on the live link; it ends with that link
    openConsole: (...given: Parameters<Libvirt["openConsole"]>) => once(given[2], (lv) => lv.openConsole(...given)),
  } satisfies Pick<Libvirt, "uploadVolume" | "downloadVolume" | "openConsole">;
  for (const [name, r] of Object.entries(calls)) {
    if (r.kind !== "call") continue;
    const row = r as AnyCall;
    out[name] = async (...given: unknown[]) => {
      const { args, signal } = splitSignal(given);
      const method = (lv: Libvirt) => (lv[name as keyof Libvirt] as (...a: unknown[]) => Promise<unknown>)(...given);
      try {
        return await once(signal, method);
      } catch (err) {
        if (!isTransportFailure(err)) throw err;
        if (row.mutates && !(err instanceof RpcNotSentError)) throw new OutcomeUnknown(row.proc.api, describe(row, args), err as Error);
        return once(signal, method);
      }
    };
  }
  return out as unknown as Libvirt;
}
