import type { Pool, PoolClient } from '../db/pool.ts';

/** Operator actions on projections, kept in `projection_audit`: who did what, when, to which event. */
export type AuditAction =
  | 'retry'
  | 'skip'
  | 'rebuild_started'
  | 'rebuild_resumed'
  | 'rebuild'
  | 'rebuild_abandoned';

export interface AuditEntry {
  id: number;
  projection: string;
  action: AuditAction;
  eventId: string | null;
  actor: string;
  detail: Record<string, unknown>;
  at: Date;
}

interface Row {
  id: string;
  projection: string;
  action: AuditAction;
  event_id: string | null;
  actor: string;
  detail: Record<string, unknown>;
  at: Date;
}

const toEntry = (r: Row): AuditEntry => ({
  id: Number(r.id),
  projection: r.projection,
  action: r.action,
  eventId: r.event_id,
  actor: r.actor,
  detail: r.detail,
  at: r.at,
});

export const projectionAudit = {
  async record(
    db: Pool | PoolClient,
    entry: {
      projection: string;
      action: AuditAction;
      actor: string;
      eventId?: string | null;
      detail?: object;
    },
  ): Promise<void> {
    await db.query(
      'INSERT INTO projection_audit (projection, action, event_id, actor, detail) VALUES ($1, $2, $3, $4, $5)',
      [
        entry.projection,
        entry.action,
        entry.eventId ?? null,
        entry.actor,
        JSON.stringify(entry.detail ?? {}),
      ],
    );
  },

  /** Newest first; `projection` undefined: every projection. */
  async recent(db: Pool | PoolClient, projection?: string, limit = 20): Promise<AuditEntry[]> {
    const { rows } = await db.query<Row>(
      `SELECT * FROM projection_audit WHERE $1::text IS NULL OR projection = $1 ORDER BY id DESC LIMIT $2`,
      [projection ?? null, limit],
    );
    return rows.map(toEntry);
  },
};
