// Tracing decorator over the seam: one log line per libvirt call after it returns,
// naming the public API, the identifiers it was given, curated results and the
// duration; failures with libvirt's code and code name. Level 2 adds domain/volume
// XML. What a line shows is the call's `trace` in calls.ts: upload bodies, keys and
// cloud-init user data are never among it.
import { log, logLevel } from "../log";
import type { Libvirt } from "./api";
import { calls, Trace } from "./calls";
import { LibvirtError } from "./errors";
import { splitSignal } from "./rpc-libvirt";

type Fields = Record<string, unknown>;
type AnyTrace = Trace<unknown[], unknown>;

function format(fields: Fields): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
}

function line(host: string, api: string, ids: Fields, started: number, outcome: Fields): string {
  return `host=${host} rpc=${api} ${format({ ...ids, ...outcome })} dur=${Date.now() - started}ms`.replace(/ +/g, " ");
}

function failure(err: unknown): Fields {
  if (err instanceof LibvirtError) return { error: JSON.stringify(err.message), code: err.code, codeName: err.codeName };
  return { error: JSON.stringify(err instanceof Error ? err.message : String(err)) };
}

/** Wraps a Libvirt so every call is logged (when PULUMI_KVM_LOG ≥ 1); `link` adds the link's own fields to each line. */
export function traced(inner: Libvirt, host: string, link: () => Fields = () => ({})): Libvirt {
  const out: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(calls)) {
    const api = row.proc.api;
    const trace = row.trace as AnyTrace;
    const fn = (inner[name as keyof Libvirt] as (...a: unknown[]) => any).bind(inner);
    if (row.kind === "download") {
      out[name] = async function* (...given: unknown[]) {
        const started = Date.now();
        const ids = trace.ids(...given);
        let bytes = 0;
        try {
          for await (const chunk of fn(...given) as AsyncGenerator<Buffer>) {
            bytes += chunk.length;
            yield chunk;
          }
          log(line(host, api, ids, started, trace.result?.({ bytes }) ?? {}));
        } catch (err) {
          log(line(host, api, ids, started, { bytes, ...failure(err) }));
          throw err;
        }
      };
      continue;
    }
    out[name] = async (...given: unknown[]) => {
      const started = Date.now();
      const { args } = splitSignal(given);
      try {
        const ret = await fn(...given);
        if (logLevel() >= 1) {
          log(line(host, api, trace.ids(...args), started, { ...trace.result?.(ret), ...link() }));
          const xml = trace.xml?.(args, ret);
          if (xml) log(`host=${host} rpc=${api} xml=${JSON.stringify(xml)}`, 2);
        }
        return ret;
      } catch (err) {
        log(line(host, api, trace.ids(...args), started, failure(err)));
        throw err;
      }
    };
  }
  return out as unknown as Libvirt;
}
