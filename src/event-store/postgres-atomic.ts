import type pg from 'pg';
import { IdempotencyConflictError, WrongExpectedRevisionError } from './errors.ts';
import type { ExpectedRevision } from './port.ts';

const UNIQUE_VIOLATION = '23505';

export interface PreparedAppend {
  stream: string;
  expectedRevision: ExpectedRevision;
  /** As append_events takes it: 'any' | 'no_stream' | 'exists' | a revision. */
  expected: string;
  ids: string[];
  events: { id?: string; type: string; data: unknown; metadata?: unknown }[];
}

/** A unique violation on event_id: the same events were appended before (a retried request). */
export function isEventIdConflict(error: unknown): boolean {
  return (
    (error as { code?: string }).code === UNIQUE_VIOLATION &&
    /event_id/.test(String((error as Error).message))
  );
}

/** append_atomically's raise: a part's expectation did not hold (its detail: the part and its revision). */
const WRONG_EXPECTED_REVISION = 'ES409';

/** What append_atomically answers per part (idx: its place in the payload). */
export interface AtomicRow {
  idx: number;
  revision: string;
  last_tx: string | null;
  last_position: string | null;
}

/**
 * The PostgreSQL adapter's appendAtomically in one statement (append_atomically, one transaction): a
 * part that does not hold raises there, and a colliding event id is a unique violation, either of which
 * undoes the statement; both are answered as the port's errors.
 */
export async function runAtomically(
  pool: pg.Pool,
  calls: readonly PreparedAppend[],
  payload: string,
): Promise<AtomicRow[]> {
  try {
    const { rows } = await pool.query<AtomicRow>(
      'SELECT idx, revision, last_tx::text AS last_tx, last_position FROM append_atomically($1)',
      [payload],
    );
    return rows;
  } catch (error) {
    if ((error as { code?: string }).code === WRONG_EXPECTED_REVISION) {
      const { idx, actual } = JSON.parse((error as { detail: string }).detail) as {
        idx: number;
        actual: number;
      };
      const call = calls[idx]!;
      throw new WrongExpectedRevisionError(
        call.stream,
        call.expectedRevision,
        actual < 0 ? 'no_stream' : BigInt(actual),
      );
    }
    if (isEventIdConflict(error)) {
      const { rows: found } = await pool.query<{ event_id: string; stream_name: string }>(
        'SELECT event_id::text AS event_id, stream_name FROM events WHERE event_id = ANY($1::uuid[])',
        [calls.flatMap((c) => c.ids)],
      );
      throw new IdempotencyConflictError(
        found[0]?.stream_name ?? calls[0]!.stream,
        found.map((r) => r.event_id),
      );
    }
    throw error;
  }
}
