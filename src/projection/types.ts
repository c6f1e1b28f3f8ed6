import type { PoolClient } from '../db/pool.ts';
import type { RecordedEvent } from '../event-store/port.ts';
import type { DomainEvent } from '../stream.ts';
import type { WorkItemInput } from '../work/queue.ts';

/** Maps a projection's logical table name to the physical table it writes (live or a rebuild's shadow). */
export type TableNames = (logical: string) => string;

export interface ApplyContext {
  tx: PoolClient;
  table: TableNames;
  /**
   * Enqueues a reactor's work items in the batch's transaction (the only way a projection enqueues).
   * A rebuild hands over one that enqueues nothing for events the live projection reacted to already:
   * their items may be swept by then, and enqueued again they would be worked again (a webhook sent twice).
   */
  enqueue: (items: readonly WorkItemInput[]) => Promise<unknown>;
  /** The store's SQL of event data by id, where its events are in this database (EventStore.eventDataSql). */
  eventDataSql?: (ids: string) => string;
}

/** A feature's event union as the log hands it over: each type with its own data. */
export type RecordedOf<E extends DomainEvent> =
  E extends DomainEvent<infer T, infer D> ? RecordedEvent<T, D> : never;

/**
 * A read model: the tables it owns, the event types it handles and how a batch of them changes the
 * tables. `apply` runs inside the transaction that also moves the checkpoint. Typed against the event
 * union it reads (`Projection<ColumnEvent | TableEvent>`): `handles` names only types of that union,
 * and `apply` sees their data typed.
 */
export interface Projection<E extends DomainEvent = DomainEvent> {
  readonly name: string;
  /** Bump to rebuild from the start of the log (blue/green, while the old version serves). */
  readonly version: number;
  readonly handles: readonly E['type'][];
  /** Logical table name -> the statements creating it under a given physical name. */
  readonly tables: Readonly<Record<string, (table: string) => string[]>>;
  /**
   * The work kinds `apply` may enqueue (a reactor): its commits wake those kinds' workers only. `[]`
   * for a read model, whose commits wake no worker; unset, every worker is woken (src/work/batch.ts).
   */
  readonly enqueues?: readonly string[];
  /**
   * Why this projection must not be rebuilt, when it keeps state that something other than its events
   * changes (a worker deleting rows): a replay would bring that state back. Rebuilds refuse it, and
   * `rebuild --all` passes it by; so never bump its version.
   */
  readonly notRebuildable?: string;
  apply(events: readonly RecordedOf<E>[], ctx: ApplyContext): Promise<void>;
}

export type ProjectionState =
  | 'starting'
  | 'standby'
  | 'catching_up'
  | 'running'
  | 'rebuilding'
  | 'failed'
  /** Lost its database (or lock connection): waiting out a backoff before it starts over. */
  | 'retrying'
  | 'stopped';

export interface ProjectionStatus {
  name: string;
  version: number;
  state: ProjectionState;
  checkpoint: { commit: string; prepare: string };
  head: { commit: string; prepare: string };
  lagEvents: number;
  lagSeconds: number;
  eventsApplied: number;
  lastError: string | null;
  failedEventId: string | null;
}
