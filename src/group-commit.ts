/**
 * Writes that arrive one at a time, stored in batches: while `maxInFlight` batches are being written,
 * whatever arrives queues and goes out as the next batch (up to `maxBatch` items), so a lone write
 * leaves at once and a stream of writes costs one round trip and one commit per batch instead of per
 * item. Each `submit` settles with its own item's outcome.
 */
export class GroupCommit<T, R> {
  private readonly queue: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;

  constructor(
    /** Writes one batch; answers one outcome per item, in order. A rejection fails the whole batch. */
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
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
