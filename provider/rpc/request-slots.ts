// The daemon's request slots on one connection: libvirtd works on at most a few calls
// per client (max_client_requests) and stops reading the socket past that, so the calls
// beyond the limit wait here. A free slot is taken synchronously: the call is sent in the
// same tick, before anything else can happen.
import { RpcAbortError, RpcNotSentError } from "./errors";

export class RequestSlots {
  private readonly queue: { go(): void; stop(err: Error): void }[] = [];
  private taken = 0;

  constructor(private readonly limit: number) {}

  /** One slot: at once (undefined) when one is free, else a wait in the queue that the signal can end. */
  take(api: string, signal?: AbortSignal): Promise<void> | undefined {
    if (this.taken < this.limit && this.queue.length === 0) {
      this.taken++;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        go: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        stop: (err: Error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(new RpcNotSentError(api, err));
        },
      };
      const onAbort = () => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        reject(new RpcAbortError(api, signal?.reason));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Hands a slot to the next queued call, or frees it. */
  release(): void {
    const next = this.queue.shift();
    if (next) next.go();
    else this.taken--;
  }

  /** The connection closed: every waiting call fails as not sent. */
  stopAll(err: Error): void {
    this.taken = 0;
    for (const waiter of this.queue.splice(0)) waiter.stop(err);
  }
}
