import type { RecordedEvent } from '../../src/event-store/port.ts';
import type { Projection } from '../../src/projection/types.ts';

/** Logical name of the read model; queries import it from here. */
export const TABLES = 'research_tables';

export interface TableRow {
  id: string;
  organization_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface TableView {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export const tableFromRow = (row: TableRow): TableView => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** A row as the batch's fold holds it; timestamps are ISO strings from events or Dates as read. */
interface Stored {
  id: string;
  organization_id: string;
  name: string;
  created_at: Date | string;
  updated_at: Date | string;
  revision: bigint;
}

/** Research tables by organization, for listing (cursor over created_at, id) and access checks. */
export const tablesProjection: Projection = {
  name: 'tables',
  version: 1,
  handles: ['TableCreated', 'TableRenamed'],
  tables: {
    [TABLES]: (t) => [
      `CREATE TABLE ${t} (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        revision bigint NOT NULL
      )`,
      `CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`,
    ],
  },
  async apply(events: readonly RecordedEvent[], { tx, table }) {
    const ids = [...new Set(events.map((e) => (e.data as Record<string, string>).tableId!))];
    if (ids.length === 0) return;
    const t = table(TABLES);
    // Read once and locked; the batch is folded in memory, then written in one statement.
    const { rows } = await tx.query<Stored & { revision: string }>(
      `SELECT id, organization_id, name, created_at, updated_at, revision FROM ${t}
       WHERE id = ANY($1::text[]) FOR UPDATE`,
      [ids],
    );
    const current = new Map<string, Stored>(rows.map((r) => [r.id, { ...r, revision: BigInt(r.revision) }]));
    const changed = new Map<string, Stored>();
    for (const event of events) {
      const data = event.data as Record<string, string>;
      const id = data.tableId!;
      const row = current.get(id);
      let next: Stored;
      if (event.type === 'TableCreated') {
        // As INSERT ... ON CONFLICT DO NOTHING: a table already there stays as it is.
        if (row) continue;
        next = {
          id,
          organization_id: data.organizationId!,
          name: data.name!,
          created_at: data.at!,
          updated_at: data.at!,
          revision: event.revision,
        };
      } else if (event.type === 'TableRenamed') {
        // The revision guard makes a re-applied event a no-op.
        if (!row || row.revision >= event.revision) continue;
        next = { ...row, name: data.name!, updated_at: data.at!, revision: event.revision };
      } else continue;
      current.set(id, next);
      changed.set(id, next);
    }
    if (changed.size === 0) return;
    // Nothing changes organization_id or created_at after TableCreated, so a stored row keeps its own
    // (they came back as Dates, which would drop the microseconds); the rest is the fold's result.
    await tx.query(
      `INSERT INTO ${t} (id, organization_id, name, created_at, updated_at, revision)
       SELECT id, organization_id, name, created_at, updated_at, revision
       FROM json_to_recordset($1::json) AS r(id text, organization_id text, name text,
            created_at timestamptz, updated_at timestamptz, revision bigint)
       ON CONFLICT (id) DO UPDATE SET
         name = EXCLUDED.name, updated_at = EXCLUDED.updated_at, revision = EXCLUDED.revision`,
      [JSON.stringify([...changed.values()], (_key, v) => (typeof v === 'bigint' ? String(v) : v))],
    );
  },
};
