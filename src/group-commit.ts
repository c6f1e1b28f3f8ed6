/**
 * Writes that arrive one at a time, stored in batches: while `maxInFlight` batches are being written,
 * whatever arrives queues and goes out as the next batch (up to `maxBatch` items), so a lone write
 * leaves at once and a stream of writes costs one round trip and one commit per batch instead of per
 * item. Each `submit` settles with its own item's outcome.
 */
const realTime = {
  now: () => performance.now(),
  later: (run: () => void, ms: number) => void setTimeout(run, ms),
};

export class GroupCommit<T, R> {
  private readonly queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;
  /** When the last batch went out, and the timer holding the next back (`minIntervalMs`). */
  private lastWrite = Number.NEGATIVE_INFINITY;
  private waiting = false;

  constructor(
    /** Writes one batch; answers one outcome per item, in order. A rejection fails the whole batch. */
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly options: {
      maxBatch: number;
      maxInFlight: number;
      /**
       * The least time between two batches' starts, unless a full batch waits: fewer, larger batches
       * for writes whose every batch costs its readers work too (each commit wakes the read models).
       */
      minIntervalMs?: number;
      /** The clock and timer `minIntervalMs` goes by (tests bring their own). */
      time?: { now(): number; later(run: () => void, ms: number): void };
    },
  ) {}

  private get time() {
    return this.options.time ?? realTime;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const wait = (this.options.minIntervalMs ?? 0) - (this.time.now() - this.lastWrite);
      if (wait > 0 && this.queue.length < this.options.maxBatch) {
        if (!this.waiting) {
          this.waiting = true;
          this.time.later(() => {
            this.waiting = false;
            this.drain();
          }, wait);
        }
        return;
      }
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.lastWrite = this.time.now();
      this.inFlight++;
      this.write(batch.map((b) => b.item))
        .then(
          (results) => {
            for (const [i, b] of batch.entries()) b.resolve(results[i]!);
          },
          (error: unknown) => {
            for (const b of batch) b.reject(error);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.drain();
        });
    }
  }
}
