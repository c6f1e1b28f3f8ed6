import type { RecordedEvent } from '../src/event-store/port.ts';
import type { Projection } from '../src/projection/types.ts';

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
    const t = table(TABLES);
    for (const event of events) {
      const data = event.data as Record<string, string>;
      const revision = String(event.revision);
      if (event.type === 'TableCreated') {
        await tx.query(
          `INSERT INTO ${t} (id, organization_id, name, created_at, updated_at, revision)
           VALUES ($1, $2, $3, $4, $4, $5) ON CONFLICT (id) DO NOTHING`,
          [data.tableId, data.organizationId, data.name, data.at, revision],
        );
      } else if (event.type === 'TableRenamed') {
        // The revision guard makes a re-applied event a no-op.
        await tx.query(
          `UPDATE ${t} SET name = $2, updated_at = $3, revision = $4 WHERE id = $1 AND revision < $4`,
          [data.tableId, data.name, data.at, revision],
        );
      }
    }
  },
};
