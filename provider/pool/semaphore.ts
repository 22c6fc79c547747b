// A counting semaphore whose waits end with the caller's AbortSignal. Taking a free
// slot never looks at the signal: an uncontended take is never refused.

export type Release = () => void;

export class Semaphore {
  private free: number;
  private readonly waiters: { grant: (r: Release) => void }[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(signal?: AbortSignal): Promise<Release> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(this.releaser());
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter = {
        grant: (r: Release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(r);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason ?? "aborted")));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant(this.releaser());
      else this.free++;
    };
  }
}
