import type { RecordedEvent } from './port.ts';
import type { EventRegistry } from './registry.ts';

/* The events table's rows as the PostgreSQL adapter reads them (src/event-store/postgres.ts). */

export interface EventRow {
  position: string;
  tx_id: string;
  stream_name: string;
  stream_revision: string;
  event_id: string;
  type: string;
  /** Null in a read that takes it from this process's own appends (see readAll). */
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

export const COLUMNS =
  'position, tx_id::text AS tx_id, stream_name, stream_revision, event_id, type, data, metadata, recorded_at';
/** As COLUMNS, without the data of events whose ids are $5 (see readAll). */
export const COLUMNS_BUT_KEPT = COLUMNS.replace(
  ' data,',
  ' CASE WHEN event_id = ANY($5::uuid[]) THEN NULL ELSE data END AS data,',
);

/** A row as the event it records: decoded (validated, upcast) by the registry, or its kept data. */
export function recordedOf(
  registry: EventRegistry,
  row: EventRow,
  kept?: ReadonlyMap<string, unknown>,
): RecordedEvent {
  const recorded: RecordedEvent = {
    id: row.event_id,
    stream: row.stream_name,
    revision: BigInt(row.stream_revision),
    position: { commit: BigInt(row.tx_id), prepare: BigInt(row.position) },
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  };
  // Read without its data: this process appended it, validated then and at the current version.
  if (row.data === null && kept?.has(row.event_id)) return { ...recorded, data: kept.get(row.event_id) };
  return registry.decode(recorded);
}
