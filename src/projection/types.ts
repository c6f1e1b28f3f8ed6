import type { PoolClient } from '../db/pool.ts';
import type { RecordedEvent } from '../event-store/port.ts';

/** Maps a projection's logical table name to the physical table it writes (live or a rebuild's shadow). */
export type TableNames = (logical: string) => string;

export interface ApplyContext {
  tx: PoolClient;
  table: TableNames;
}

/**
 * A read model: the tables it owns, the event types it handles and how a batch of them changes the
 * tables. `apply` runs inside the transaction that also moves the checkpoint.
 */
export interface Projection {
  readonly name: string;
  /** Bump to rebuild from the start of the log (blue/green, while the old version serves). */
  readonly version: number;
  readonly handles: readonly string[];
  /** Logical table name -> the statements creating it under a given physical name. */
  readonly tables: Readonly<Record<string, (table: string) => string[]>>;
  apply(events: readonly RecordedEvent[], ctx: ApplyContext): Promise<void>;
}

export type ProjectionState =
  | 'starting'
  | 'standby'
  | 'catching_up'
  | 'running'
  | 'rebuilding'
  | 'failed'
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
