/**
 * A budget of bytes held in memory at once, shared by a process, with a share per group (an
 * organization) so that one group's large reads cannot take all of it. A holder acquires what it may
 * hold before it reads, and releases it once what it read has left the process. Waiters are served in
 * arrival order among those that fit: a waiter whose group is at its share does not hold back the
 * others. Its own accounting (`inUse`, `peak`, `waits`) is what tests and metrics read.
 */
export interface ByteBudgetOptions {
  /** Bytes held at once by every holder together. */
  total: number;
  /** Bytes held at once by the holders of one group. */
  perGroup: number;
}

export interface Reservation {
  /** Bytes held now. */
  readonly bytes: number;
  /**
   * Holds `bytes` from now on: less gives the rest back at once; more is counted at once, without
   * waiting (the memory is already taken: a lone row larger than a page's share).
   */
  resize(bytes: number): void;
  /** Gives everything back; a second call does nothing. */
  release(): void;
}

interface Waiter {
  group: string;
  bytes: number;
  grant: (reservation: Reservation) => void;
}

/** Raised when a wait ends without the bytes: the caller gave up, or the wait took too long. */
export class BudgetWaitAborted extends Error {}

export class ByteBudget {
  private used = 0;
  private readonly byGroup = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  /** The most bytes held at once, overall and by any one group, since the last `resetStats`. */
  peak = 0;
  peakPerGroup = 0;
  /** Acquisitions that had to wait. */
  waits = 0;

  constructor(readonly options: ByteBudgetOptions) {}

  get inUse(): number {
    return this.used;
  }

  get queued(): number {
    return this.waiting.length;
  }

  resetStats(): void {
    this.peak = this.used;
    this.peakPerGroup = Math.max(0, ...this.byGroup.values());
    this.waits = 0;
  }

  /**
   * `bytes` for `group` (at most the group's share), at once when they fit, else when holders give
   * enough back. Rejects with BudgetWaitAborted when `signal` aborts first.
   */
  acquire(group: string, bytes: number, signal?: AbortSignal): Promise<Reservation> {
    const want = Math.min(Math.max(0, Math.ceil(bytes)), this.options.perGroup, this.options.total);
    if (signal?.aborted) return Promise.reject(new BudgetWaitAborted('gave up waiting'));
    if (this.waiting.length === 0 && this.fits(group, want)) return Promise.resolve(this.take(group, want));
    this.waits++;
    return new Promise<Reservation>((resolve, reject) => {
      const waiter: Waiter = {
        group,
        bytes: want,
        grant: (reservation) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(reservation);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(new BudgetWaitAborted('gave up waiting'));
        // A waiter leaving may let the ones behind it in (it may have been first in line).
        this.serve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      // Another waiter of a full group may be ahead: this one may fit already.
      this.serve();
    });
  }

  private fits(group: string, bytes: number): boolean {
    return (
      this.used + bytes <= this.options.total &&
      (this.byGroup.get(group) ?? 0) + bytes <= this.options.perGroup
    );
  }

  private take(group: string, bytes: number): Reservation {
    let held = 0;
    let released = false;
    const change = (delta: number) => {
      held += delta;
      this.used += delta;
      const groupBytes = (this.byGroup.get(group) ?? 0) + delta;
      if (groupBytes > 0) this.byGroup.set(group, groupBytes);
      else this.byGroup.delete(group);
      this.peak = Math.max(this.peak, this.used);
      this.peakPerGroup = Math.max(this.peakPerGroup, groupBytes);
      if (delta < 0) this.serve();
    };
    change(bytes);
    return {
      get bytes() {
        return held;
      },
      resize: (next: number) => {
        if (released) return;
        change(Math.max(0, Math.ceil(next)) - held);
      },
      release: () => {
        if (released) return;
        change(-held);
        released = true;
      },
    };
  }

  /**
   * Grants waiters in arrival order. One whose group is at its share is passed over (its group waits,
   * not the others); the first that does not fit the total stops the line, so that small requests
   * arriving later cannot starve a large one.
   */
  private serve(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const waiter = this.waiting[i]!;
      if ((this.byGroup.get(waiter.group) ?? 0) + waiter.bytes > this.options.perGroup) {
        i++;
        continue;
      }
      if (this.used + waiter.bytes > this.options.total) return;
      this.waiting.splice(i, 1);
      waiter.grant(this.take(waiter.group, waiter.bytes));
    }
  }
}
