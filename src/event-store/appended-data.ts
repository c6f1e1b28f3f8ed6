/** An append whose events' JSON is at least this long leaves their data here (see AppendedData). */
export const KEPT_FROM_BYTES = 32 * 1024;

/**
 * The data of the large events this process appended lately, by event id, for its own readers of the
 * log. The live tail hands each append to the projection runners right after it commits: an insert
 * batch of 1,000 rows (about 300 KB) read back meant the server decompressing and printing it, the
 * socket carrying it and this process parsing and validating it again, only to rebuild the object it
 * had validated on append moments before. The data is the registry's output on append (validated,
 * stamped with the current schema version, so nothing to upcast), shared with the readers, which never
 * change the events they are handed. Bounded, oldest first out: a read of an event no longer here
 * takes its data from the table as before, so a miss costs time, never an event.
 */
export class AppendedData {
  private readonly kept = new Map<string, { data: unknown; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEvents = 16,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /** After a committed append: its events' data, `bytes` the JSON length of them all. */
  keep(events: readonly { id: string; data: unknown }[], bytes: number): void {
    if (bytes < KEPT_FROM_BYTES) return;
    const each = bytes / events.length;
    // PostgreSQL prints uuids in lower case: the reads look them up as printed.
    for (const { id, data } of events) this.kept.set(id.toLowerCase(), { data, bytes: each });
    this.bytes += bytes;
    for (const [id, entry] of this.kept) {
      if (this.kept.size <= this.maxEvents && this.bytes <= this.maxBytes) break;
      this.kept.delete(id);
      this.bytes -= entry.bytes;
    }
  }

  /** What one read may take from here (later appends and evictions do not change it). */
  snapshot(): ReadonlyMap<string, unknown> | undefined {
    if (this.kept.size === 0) return undefined;
    return new Map([...this.kept].map(([id, entry]) => [id, entry.data]));
  }
}
