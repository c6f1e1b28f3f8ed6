import pg from 'pg';
import type { Pool, PoolClient } from '../db/pool.ts';
import type { Position } from '../event-store/port.ts';
import type { ProjectionState } from './types.ts';

export interface CheckpointRow {
  name: string;
  version: number;
  position: Position;
  eventsApplied: number;
  state: ProjectionState;
  lastError: string | null;
  failedEventId: string | null;
}

/** A row of `projection_checkpoints` as the database returns it. */
export interface CheckpointTableRow {
  name: string;
  version: number;
  commit_position: string;
  prepare_position: string;
  events_applied: string;
  state: ProjectionState;
  last_error: string | null;
  failed_event_id: string | null;
}

const toRow = (r: CheckpointTableRow): CheckpointRow => ({
  name: r.name,
  version: r.version,
  position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
  eventsApplied: Number(r.events_applied),
  state: r.state,
  lastError: r.last_error,
  failedEventId: r.failed_event_id,
});

const ADVANCE = `UPDATE projection_checkpoints
  SET commit_position = $2, prepare_position = $3, events_applied = events_applied + $4,
      state = CASE WHEN state = 'failed' THEN state ELSE 'running' END, updated_at = now()
  WHERE name = $1`;

/** The `projection_checkpoints` table: one row per projection (and per rebuild under way). */
export const checkpoints = {
  async ensure(db: Pool | PoolClient, name: string, version: number): Promise<CheckpointRow> {
    await db.query(
      'INSERT INTO projection_checkpoints (name, version) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [name, version],
    );
    return (await checkpoints.get(db, name)) as CheckpointRow;
  },

  async get(db: Pool | PoolClient, name: string, forUpdate = false): Promise<CheckpointRow | undefined> {
    const { rows } = await db.query<CheckpointTableRow>(
      `SELECT * FROM projection_checkpoints WHERE name = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [name],
    );
    return rows[0] ? toRow(rows[0]) : undefined;
  },

  async all(db: Pool | PoolClient): Promise<CheckpointRow[]> {
    const { rows } = await db.query<CheckpointTableRow>('SELECT * FROM projection_checkpoints ORDER BY name');
    return rows.map(toRow);
  },

  async advance(tx: PoolClient, name: string, to: Position, applied: number): Promise<void> {
    await tx.query(ADVANCE, [name, String(to.commit), String(to.prepare), applied]);
  },

  /** `advance` as plain SQL (values as literals), to go in one round trip with other statements. */
  advanceSql(name: string, to: Position, applied: number): string {
    const values = [pg.escapeLiteral(name), String(to.commit), String(to.prepare), String(applied)];
    return ADVANCE.replace(/\$(\d)/g, (_, n: string) => values[Number(n) - 1]!);
  },

  /** `get(name, true)` as plain SQL, to go in one round trip with other statements. */
  getForUpdateSql(name: string): string {
    return `SELECT * FROM projection_checkpoints WHERE name = ${pg.escapeLiteral(name)} FOR UPDATE`;
  },

  toRow,

  async setState(
    db: Pool | PoolClient,
    name: string,
    state: ProjectionState,
    error: { message: string; eventId: string } | null = null,
  ): Promise<void> {
    await db.query(
      `UPDATE projection_checkpoints SET state = $2, last_error = $3, failed_event_id = $4, updated_at = now()
       WHERE name = $1`,
      [name, state, error?.message ?? null, error?.eventId ?? null],
    );
  },
};
