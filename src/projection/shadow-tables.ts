import type { PoolClient } from '../db/pool.ts';
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
 */
export async function promoteShadow(tx: PoolClient, logical: string, shadow: string): Promise<void> {
  await tx.query(`DROP TABLE IF EXISTS ${quoteIdent(logical)}`);
  await tx.query(`ALTER TABLE ${quoteIdent(shadow)} RENAME TO ${quoteIdent(logical)}`);
  const renamed = (name: string) =>
    name.startsWith(shadow) ? `${logical}${name.slice(shadow.length)}`.slice(0, 63) : undefined;
  // Renaming an index also renames the constraint it backs (primary key, unique, exclusion).
  const { rows: owned } = await tx.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c
       JOIN pg_index i ON i.indexrelid = c.oid WHERE i.indrelid = $1::regclass
     UNION ALL
     SELECT s.relname, s.relkind::text FROM pg_class s
       JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass
      WHERE d.refobjid = $1::regclass AND s.relkind = 'S'`,
    [quoteIdent(logical)],
  );
  for (const { name, kind } of owned) {
    const to = renamed(name);
    if (!to) continue;
    // A name still taken (by an unrelated relation) keeps the shadow's name rather than fail the swap.
    const { rows: taken } = await tx.query('SELECT to_regclass($1) AS t', [quoteIdent(to)]);
    if (taken[0].t !== null) continue;
    await tx.query(
      `ALTER ${kind === 'S' ? 'SEQUENCE' : 'INDEX'} ${quoteIdent(name)} RENAME TO ${quoteIdent(to)}`,
    );
  }
  const { rows: constraints } = await tx.query<{ name: string }>(
    `SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('c', 'f')`,
    [quoteIdent(logical)],
  );
  for (const { name } of constraints) {
    const to = renamed(name);
    if (to)
      await tx.query(
        `ALTER TABLE ${quoteIdent(logical)} RENAME CONSTRAINT ${quoteIdent(name)} TO ${quoteIdent(to)}`,
      );
  }
}
