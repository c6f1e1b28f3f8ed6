import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import { projectionAudit } from './audit.ts';
import {
  createShadowTables,
  dropTables,
  type ShadowTables,
  shadowTablesFor,
  tablesExist,
} from './shadow-tables.ts';
import type { Projection } from './types.ts';

export interface RebuildRecord {
  projection: string;
  version: number;
  suffix: string;
  tables: ShadowTables;
  reason: string;
  actor: string;
  startedAt: Date;
}

interface Row {
  projection: string;
  version: number;
  suffix: string;
  tables: ShadowTables;
  reason: string;
  actor: string;
  started_at: Date;
}

const toRecord = (r: Row): RebuildRecord => ({
  projection: r.projection,
  version: r.version,
  suffix: r.suffix,
  tables: r.tables,
  reason: r.reason,
  actor: r.actor,
  startedAt: r.started_at,
});

/** The checkpoint row of a projection's rebuild, beside the live one. */
export const rebuildCheckpointName = (projection: string) => `${projection}@rebuild`;
const checkpointName = rebuildCheckpointName;

const sameTables = (record: RebuildRecord, projection: Projection) => {
  const wanted = Object.keys(projection.tables).sort();
  const have = Object.keys(record.tables).sort();
  return wanted.length === have.length && wanted.every((t, i) => t === have[i]);
};

/** The `projection_rebuilds` rows: which rebuilds are under way, and into which shadow tables. */
export const rebuildRecords = {
  async get(
    db: Pool | PoolClient,
    projection: string,
    forUpdate = false,
  ): Promise<RebuildRecord | undefined> {
    const { rows } = await db.query<Row>(
      `SELECT * FROM projection_rebuilds WHERE projection = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [projection],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  },

  async all(db: Pool | PoolClient): Promise<RebuildRecord[]> {
    const { rows } = await db.query<Row>('SELECT * FROM projection_rebuilds ORDER BY projection');
    return rows.map(toRecord);
  },

  async remove(tx: PoolClient, projection: string): Promise<void> {
    await tx.query('DELETE FROM projection_rebuilds WHERE projection = $1', [projection]);
  },

  /**
   * Resumes the rebuild under way for the code's version, or starts a new one: fresh shadow tables and
   * a rebuild checkpoint at the start of the log. A rebuild left by other code (another version, other
   * tables) is discarded first.
   */
  async begin(
    pool: Pool,
    projection: Projection,
    by: { actor: string; reason: string },
  ): Promise<{ record: RebuildRecord; resumed: boolean }> {
    return inTransaction(pool, async (tx) => {
      const existing = await rebuildRecords.get(tx, projection.name, true);
      if (existing && existing.version === projection.version && sameTables(existing, projection)) {
        const { rows } = await tx.query('SELECT 1 FROM projection_checkpoints WHERE name = $1', [
          checkpointName(projection.name),
        ]);
        if (rows.length > 0 && (await tablesExist(tx, Object.values(existing.tables)))) {
          await projectionAudit.record(tx, {
            projection: projection.name,
            action: 'rebuild_resumed',
            actor: by.actor,
            detail: { version: projection.version, startedBy: existing.actor, reason: by.reason },
          });
          return { record: existing, resumed: true };
        }
      }
      if (existing) await discard(tx, existing);
      const suffix = randomBytes(3).toString('hex');
      const tables = shadowTablesFor(projection, suffix);
      await createShadowTables(tx, projection, tables);
      const { rows } = await tx.query<Row>(
        `INSERT INTO projection_rebuilds (projection, version, suffix, tables, reason, actor)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [projection.name, projection.version, suffix, JSON.stringify(tables), by.reason, by.actor],
      );
      await tx.query(
        `INSERT INTO projection_checkpoints (name, version, state) VALUES ($1, $2, 'rebuilding')`,
        [checkpointName(projection.name), projection.version],
      );
      await projectionAudit.record(tx, {
        projection: projection.name,
        action: 'rebuild_started',
        actor: by.actor,
        detail: { version: projection.version, reason: by.reason, tables },
      });
      return { record: toRecord(rows[0]!), resumed: false };
    });
  },

  /** Drops a rebuild under way (its shadow tables and checkpoint); the live tables are untouched. */
  async abandon(pool: Pool, projection: string): Promise<boolean> {
    return inTransaction(pool, async (tx) => {
      const existing = await rebuildRecords.get(tx, projection, true);
      if (existing) await discard(tx, existing);
      return existing !== undefined;
    });
  },
};

async function discard(tx: PoolClient, record: RebuildRecord): Promise<void> {
  await dropTables(tx, Object.values(record.tables));
  await tx.query('DELETE FROM projection_checkpoints WHERE name = $1', [checkpointName(record.projection)]);
  await rebuildRecords.remove(tx, record.projection);
}

export interface RebuildOptions {
  /** Who asked: an operator's name, or `system:startup` for a version bump. */
  actor: string;
  reason?: 'operator' | 'version';
  /** Events read and applied per transaction. */
  batchSize?: number;
  /** Stops after the batch in flight; the next run resumes from the rebuild's checkpoint. */
  signal?: AbortSignal;
  /** Called after each batch and at each phase; a returned promise is waited for (e.g. to let a test act before the swap). */
  onProgress?: (progress: RebuildProgress) => void | Promise<void>;
  /** How long the swap waits for a table lock (readers, the live runner) before it backs off and retries. */
  swapLockTimeoutMs?: number;
}

export interface RebuildProgress {
  projection: string;
  version: number;
  phase: 'building' | 'swapping' | 'swapped';
  /** Events of the log read by this run so far. */
  processed: number;
  /** Events between the rebuild's checkpoint when this run started and the head then, when countable. */
  total?: number;
  resumed: boolean;
}
