import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inTransaction, type PoolClient } from '../../src/db/pool.ts';
import type { RecordedEvent } from '../../src/event-store/port.ts';
import { applyContext } from '../../src/projection/apply-context.ts';
import type { Projection, RecordedOf } from '../../src/projection/types.ts';
import type { DomainEvent } from '../../src/stream.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';
import { testRegistry } from './test-streams.ts';

/**
 * Events as the log would hand them over: each stream's revisions counted from 0, positions in the
 * order appended, the data validated (and the schema version stamped) by the tests' registry, so an
 * event no stream declares or with data its schema refuses fails here rather than reach a projection.
 */
export class SpecLog {
  private position = 0n;
  private readonly revisions = new Map<string, bigint>();

  /** The stream's next event; `revision` places it explicitly (a stale or re-sent event). */
  append<T extends string, D>(
    stream: string,
    event: { type: T; data: D },
    options: { revision?: number } = {},
  ): RecordedEvent<T, D> {
    const next = this.revisions.get(stream) ?? 0n;
    const revision = options.revision === undefined ? next : BigInt(options.revision);
    if (revision >= next) this.revisions.set(stream, revision + 1n);
    this.position++;
    const prepared = testRegistry.prepare(event);
    return {
      id: randomUUID(),
      stream,
      revision,
      position: { commit: this.position, prepare: this.position },
      type: event.type,
      data: prepared.data as D,
      metadata: prepared.metadata,
      recordedAt: new Date(),
    };
  }
}

export interface RowsOptions {
  /** Logical table (default: the projection's only one). */
  table?: string;
  /** What to select (default `*`). */
  columns?: string;
  /** Default: the first column selected. */
  orderBy?: string;
}

/** What a `given` left behind: the rows, and how many statements each batch took. */
export interface Given {
  /** Per batch, the statements `apply` ran. */
  statements: number[];
  rows(options?: RowsOptions): Promise<Record<string, unknown>[]>;
  /** Asserts the rows equal `expected`, in order. */
  thenRows(expected: readonly Record<string, unknown>[], options?: RowsOptions): Promise<void>;
}

export interface ProjectionSpec {
  db: TestDatabase;
  /**
   * Empty tables, then each batch applied in a transaction of its own as the runner does (the events
   * it does not handle left out); the rows are then those tables'. Every `given` starts over.
   */
  given(...batches: readonly (readonly RecordedEvent[])[]): Promise<Given>;
  close(): Promise<void>;
}

/** `tx` with its statements counted, for the claim that a batch costs a fixed number of them. */
function counting(tx: PoolClient, count: () => void): PoolClient {
  const counted = Object.create(tx) as PoolClient;
  counted.query = ((...args: Parameters<PoolClient['query']>) => {
    count();
    return (tx.query as (...a: unknown[]) => unknown)(...args);
  }) as PoolClient['query'];
  return counted;
}

/**
 * A projection spec over a fresh database: given events, then rows.
 *
 *   const spec = await projectionSpec(columnsProjection);   // in test.before; spec.close() after
 *   const log = new SpecLog();
 *   const created = log.append(columnStream.name('t1', 'c1'), columnCreated('t1', 'c1', {...}));
 *   await (await spec.given([created], [created])).thenRows([{ id: 'c1', ... }]);
 */
export async function projectionSpec<E extends DomainEvent>(
  projection: Projection<E>,
): Promise<ProjectionSpec> {
  const db = await freshDatabase();
  let scenarios = 0;
  return {
    db,
    async given(...batches) {
      // Fresh tables under names of their own, as a rebuild builds shadow tables.
      const suffix = `_spec${++scenarios}`;
      const physical = (logical: string) => `${logical}${suffix}`;
      for (const [logical, ddl] of Object.entries(projection.tables))
        for (const statement of ddl(physical(logical))) await db.pool.query(statement);
      const statements: number[] = [];
      for (const batch of batches) {
        const handled = batch.filter((e) => projection.handles.includes(e.type)) as RecordedOf<E>[];
        let count = 0;
        await inTransaction(db.pool, (tx) =>
          projection.apply(
            handled,
            applyContext(
              counting(tx, () => count++),
              physical,
            ),
          ),
        );
        statements.push(count);
      }
      const rows = async ({ table, columns = '*', orderBy = '1' }: RowsOptions = {}) => {
        const logical = table ?? Object.keys(projection.tables)[0]!;
        return (await db.pool.query(`SELECT ${columns} FROM ${physical(logical)} ORDER BY ${orderBy}`)).rows;
      };
      return {
        statements,
        rows,
        async thenRows(expected, options) {
          assert.equal(await rows(options), expected);
        },
      };
    },
    close: () => db.drop(),
  };
}

/** A suite whose tests share one projection spec (one fresh database) as `spec` in their context. */
export function projectionSuite<E extends DomainEvent>(name: string, projection: Projection<E>) {
  const test = suite<{ spec: ProjectionSpec }>(name);
  test.before(async (ctx) => {
    ctx.spec = await projectionSpec(projection);
  });
  test.after(async (ctx) => {
    await ctx.spec.close();
  });
  return test;
}
