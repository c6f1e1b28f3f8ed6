import { onAdmin } from '../../test/support/pg-server.ts';

/**
 * Rows inserted into `tableId`, counted in the event log of the database at `databaseUrl`, less the
 * `seeded` rows inserted before: a request the client gave up on may still have landed.
 */
export async function insertedRows(databaseUrl: string, tableId: string, seeded: number): Promise<number> {
  return onAdmin(databaseUrl, async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `SELECT coalesce(sum(jsonb_array_length(data->'rows')), 0)::int AS n FROM events
       WHERE type = 'RowsInserted' AND data->>'tableId' = $1`,
      [tableId],
    );
    return rows[0]!.n - seeded;
  });
}

/** The six most frequent event types in the log, with their counts: `RowCellsChanged 600, ...`. */
export async function mostFrequentEventTypes(databaseUrl: string): Promise<string> {
  return onAdmin(databaseUrl, async (c) => {
    const { rows } = await c.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM events GROUP BY type ORDER BY n DESC LIMIT 6',
    );
    return rows.map((r) => `${r.type} ${r.n.toLocaleString('en-US')}`).join(', ');
  });
}
