// Ctrl-C. Pulumi's engine, when a run is terminated (a second Ctrl-C) or its plugins are
// closed, sends SIGINT to this provider process and kills it 5 s later. Creates and moves in
// flight are then told to stop (their signal aborts, an upload ends at once, a migration is
// cancelled and the VM stays where it was) and undo what they made; the process exits once they have, or after 4 s, leaving whatever is not
// undone yet in the journal for the next operation on its host (rollback.ts).
import { KvmError } from "../errors";
import { warn } from "../log";

/** How long undoing may take before the process exits: within the engine's 5 s. */
const GRACE_MS = 4_000;

const stop = new AbortController();
const running = new Set<Promise<unknown>>();
let listening = false;

function onSignal(sig: NodeJS.Signals): void {
  if (stop.signal.aborted) return;
  stop.abort(
    new KvmError("transient", `pulumi-kvm was interrupted (${sig}): what this create made is removed, or journalled and removed by the next pulumi up`),
  );
  if (running.size) warn(`${sig}: stopping ${running.size} create(s) or move(s) in flight and undoing what they made`);
  const grace = setTimeout(() => process.exit(130), GRACE_MS);
  void Promise.allSettled([...running]).then(() => {
    clearTimeout(grace);
    process.exit(130);
  });
}

/**
 * Runs a create (or a Domain's move) that SIGINT or SIGTERM stops through `signal`; the process then waits
 * for it (and its undo) to settle before exiting. Listening starts with the first create,
 * so only the provider process, never the program that loads the SDK, gets the handlers.
 */
export function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (!listening) {
    listening = true;
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
  const p = work(stop.signal);
  running.add(p);
  void p.catch(() => undefined).finally(() => running.delete(p));
  return p;
}
