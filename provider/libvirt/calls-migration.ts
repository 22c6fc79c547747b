// The libvirt calls that move a running domain from one host to another: rows of the call
// table (calls.ts). The client drives the five phases of libvirt's migration protocol
// (version 3, with typed parameters) over its two connections, handing each side's cookie to
// the other; the memory and disk streams go between the hosts themselves.
import { array, int, opaque, struct, uhyper } from "../rpc/codec";
import { procedure } from "../rpc/procedure";
import { domainRef, nonnullString, remoteString, typedParam } from "../rpc/types";
import type { DomainRef, TypedParam } from "../rpc/types";
import { dom, flags, hex, none, nothing, read, watched, write } from "./call-rows";

/** REMOTE_DOMAIN_MIGRATE_PARAM_LIST_MAX, REMOTE_MIGRATE_COOKIE_MAX */
const PARAMS_MAX = 64;
const COOKIE_MAX = 4194304;
const params = array(typedParam, PARAMS_MAX);
const cookie = opaque(COOKIE_MAX);

/** The fields of the parameters a trace line shows (their values can hold a domain's whole XML). */
const fields = (p: TypedParam[]) => p.map((x) => x.field).join(",");

export const migrationCalls = {
  /** On the source: the domain's XML as the destination is to define it, and the source's cookie. */
  migrateBegin: write(
    procedure(302, "virDomainMigrateBegin3Params", struct({ dom: domainRef, params, flags }), struct({ cookieOut: cookie, xml: nonnullString })),
    (d: DomainRef, p: TypedParam[], f: number) => ({ dom: d, params: p, flags: f }),
    (r) => r,
    { ids: (d, p, f) => ({ domain: dom(d), params: fields(p), flags: f }), xml: (_a, r) => r.xml },
  ),
  /** On the destination: a domain ready to receive, the URI the source is to send to (when the destination chose it), and its cookie. */
  migratePrepare: write(
    procedure(303, "virDomainMigratePrepare3Params", struct({ params, cookieIn: cookie, flags }), struct({ cookieOut: cookie, uriOut: remoteString })),
    (p: TypedParam[], c: Buffer, f: number) => ({ params: p, cookieIn: c, flags: f }),
    (r) => r,
    { ids: (p, _c, f) => ({ params: fields(p), flags: f }), result: (r) => ({ uri: r.uriOut ?? "" }) },
  ),
  /** On the source: sends the memory (and with NON_SHARED_DISK the disks) to the destination; as long as the data takes. */
  migratePerform: watched(
    write(
      procedure(
        305,
        "virDomainMigratePerform3Params",
        struct({ dom: domainRef, dconnuri: remoteString, params, cookieIn: cookie, flags }),
        struct({ cookieOut: cookie }),
      ),
      (d: DomainRef, p: TypedParam[], c: Buffer, f: number) => ({ dom: d, dconnuri: null, params: p, cookieIn: c, flags: f }),
      (r) => r.cookieOut,
      { ids: (d, p, _c, f) => ({ domain: dom(d), params: fields(p), flags: f }) },
    ),
  ),
  /** On the destination: resumes the domain there (cancelled: kills what Prepare made); the domain, when it runs there. */
  migrateFinish: write(
    procedure(306, "virDomainMigrateFinish3Params", struct({ params, cookieIn: cookie, flags, cancelled: int }), struct({ dom: domainRef, cookieOut: cookie })),
    (p: TypedParam[], c: Buffer, f: number, cancelled: boolean) => ({ params: p, cookieIn: c, flags: f, cancelled: cancelled ? 1 : 0 }),
    (r) => r,
    { ids: (p, _c, f, cancelled) => ({ params: fields(p), flags: f, cancelled }), result: (r) => ({ domain: r.dom.name, uuid: hex(r.dom.uuid) }) },
  ),
  /** On the source: ends the job (cancelled: the domain resumes on the source; otherwise it is gone from there). */
  migrateConfirm: write(
    procedure(307, "virDomainMigrateConfirm3Params", struct({ dom: domainRef, params, cookieIn: cookie, flags, cancelled: int }), none),
    (d: DomainRef, p: TypedParam[], c: Buffer, f: number, cancelled: boolean) => ({ dom: d, params: p, cookieIn: c, flags: f, cancelled: cancelled ? 1 : 0 }),
    () => undefined,
    { ids: (d, _p, _c, f, cancelled) => ({ domain: dom(d), flags: f, cancelled }) },
  ),
  /** On the source while Perform runs: stops the migration (virsh domjobabort); Perform then fails. */
  abortJob: write(procedure(164, "virDomainAbortJob", struct({ dom: domainRef }), none), (d: DomainRef) => ({ dom: d }), nothing, {
    ids: (d) => ({ domain: dom(d) }),
  }),
  /** On the source while Perform runs: the bytes of memory and disks sent so far, and those left (virsh domjobinfo). */
  migrationProgress: read(
    procedure(
      163,
      "virDomainGetJobInfo",
      struct({ dom: domainRef }),
      struct({
        type: int,
        timeElapsed: uhyper,
        timeRemaining: uhyper,
        dataTotal: uhyper,
        dataProcessed: uhyper,
        dataRemaining: uhyper,
        memTotal: uhyper,
        memProcessed: uhyper,
        memRemaining: uhyper,
        fileTotal: uhyper,
        fileProcessed: uhyper,
        fileRemaining: uhyper,
      }),
    ),
    (d: DomainRef) => ({ dom: d }),
    (r) => ({ total: Number(r.dataTotal), processed: Number(r.dataProcessed), remaining: Number(r.dataRemaining) }),
    { ids: (d) => ({ domain: dom(d) }) },
  ),
};
