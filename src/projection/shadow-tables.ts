import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from '../db/pool.ts';
import type { Projection } from './types.ts';

/** Logical table name -> physical shadow table name. */
export type ShadowTables = Record<string, string>;

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A shadow name carries the version and a random suffix: index and constraint names derive from the
 * table name, and the leftovers of an earlier swap must never collide with a later rebuild's names.
 */
export function shadowTablesFor(projection: Projection, suffix: string): ShadowTables {
  return Object.fromEntries(
    Object.keys(projection.tables).map((logical) => [
      logical,
      `${logical}__r${projection.version}_${suffix}`,
    ]),
  );
}

export async function createShadowTables(
  tx: PoolClient,
  projection: Projection,
  shadows: ShadowTables,
): Promise<void> {
  for (const [logical, ddl] of Object.entries(projection.tables)) {
    const shadow = shadows[logical];
    if (!shadow) throw new Error(`no shadow name for ${projection.name}.${logical}`);
    await tx.query(`DROP TABLE IF EXISTS ${quoteIdent(shadow)}`);
    for (const statement of ddl(shadow)) await tx.query(statement);
  }
}

export async function dropTables(tx: PoolClient, names: readonly string[]): Promise<void> {
  for (const name of names) await tx.query(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
}

export async function tablesExist(tx: PoolClient, names: readonly string[]): Promise<boolean> {
  const { rows } = await tx.query<{ missing: number }>(
    'SELECT count(*)::int AS missing FROM unnest($1::text[]) AS n WHERE to_regclass(quote_ident(n)) IS NULL',
    [names],
  );
  return rows[0]!.missing === 0;
}

/**
 * Replaces the live table by its shadow: drops the live one and renames the shadow, and the indexes,
 * constraints and sequences named after it, to the logical name. Runs inside the swap transaction.
 * A partitioned live table is not dropped there but renamed aside (`<logical>__retired_<suffix>`):
 * dropping it with its partitions, each with its indexes, would take a lock on every one of them in
 * one transaction, more than PostgreSQL's lock table holds for a few thousand partitions. The caller
 * drops what was retired after the swap has committed (dropRetired).
 */
export async function promoteShadow(tx: PoolClient, logical: string, shadow: string): Promise<void> {
  const { rows: live } = await tx.query<{ kind: string }>(
    'SELECT relkind::text AS kind FROM pg_class WHERE oid = to_regclass($1)',
    [quoteIdent(logical)],
  );
  if (live[0]?.kind === 'p') {
    const retired = `${logical}__retired_${randomBytes(3).toString('hex')}`;
    await renameWithOwned(tx, logical, logical, retired);
  } else await tx.query(`DROP TABLE IF EXISTS ${quoteIdent(logical)}`);
  await renameWithOwned(tx, shadow, shadow, logical);
}

/**
 * Renames table `table` to `to`, and the indexes, sequences and constraints named after `from` (its
 * name) to names after `to`.
 */
async function renameWithOwned(tx: PoolClient, table: string, from: string, to: string): Promise<void> {
  await tx.query(`ALTER TABLE ${quoteIdent(table)} RENAME TO ${quoteIdent(to)}`);
  const renamed = (name: string) =>
    name.startsWith(from) ? `${to}${name.slice(from.length)}`.slice(0, 63) : undefined;
  // Renaming an index also renames the constraint it backs (primary key, unique, exclusion).
  const { rows: owned } = await tx.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c
       JOIN pg_index i ON i.indexrelid = c.oid WHERE i.indrelid = $1::regclass
     UNION ALL
     SELECT s.relname, s.relkind::text FROM pg_class s
       JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass
      WHERE d.refobjid = $1::regclass AND s.relkind = 'S'`,
    [quoteIdent(to)],
  );
  for (const { name, kind } of owned) {
    const target = renamed(name);
    if (!target) continue;
    // A name still taken (by an unrelated relation) keeps its name rather than fail the swap.
    const { rows: taken } = await tx.query('SELECT to_regclass($1) AS t', [quoteIdent(target)]);
    if (taken[0].t !== null) continue;
    await tx.query(
      `ALTER ${kind === 'S' ? 'SEQUENCE' : 'INDEX'} ${quoteIdent(name)} RENAME TO ${quoteIdent(target)}`,
    );
  }
  const { rows: constraints } = await tx.query<{ name: string }>(
    `SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('c', 'f')`,
    [quoteIdent(to)],
  );
  for (const { name } of constraints) {
    const target = renamed(name);
    if (target)
      await tx.query(
        `ALTER TABLE ${quoteIdent(to)} RENAME CONSTRAINT ${quoteIdent(name)} TO ${quoteIdent(target)}`,
      );
  }
}

/**
 * Drops what swaps retired of `logical` (promoteShadow), a partition a transaction and the emptied
 * table last, after the swap: nobody reads them any more. Also what a crash left behind.
 */
export async function dropRetired(pool: Pool, logical: string): Promise<void> {
  const { rows: retired } = await pool.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class
     WHERE relkind IN ('p', 'r') AND pg_table_is_visible(oid) AND starts_with(relname, $1)`,
    [`${logical}__retired_`],
  );
  for (const { name } of retired) {
    const { rows: partitions } = await pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = to_regclass($1)`,
      [quoteIdent(name)],
    );
    for (const partition of partitions)
      await pool.query(`DROP TABLE IF EXISTS ${quoteIdent(partition.name)}`);
    await pool.query(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
  }
}
