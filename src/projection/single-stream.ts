import type { DomainEvent, StreamDefinition } from '../stream.ts';
import type { ApplyContext, Projection, RecordedOf } from './types.ts';

/**
 * The read model's one table: one row per stream, keyed by the stream's id. `Row` is the row's JSON
 * shape: it is written with `json_to_recordset` and read back in that same shape, so a value folded
 * again comes back exactly as it went (a timestamp as an ISO string with all its digits, a double with
 * all of its, a jsonb column as its object).
 */
export interface SingleStreamTable<Row extends object> {
  /** Logical name; queries import it from the projection's module. */
  readonly name: string;
  /** The column holding `idOf(event)`, the primary key. */
  readonly key: keyof Row & string;
  /**
   * Every column of the row with its SQL type, in table order. The table, the locked read and the
   * upsert are all made from this one list: each column NOT NULL (the key is the PRIMARY KEY), and
   * last `revision bigint NOT NULL`, the stream revision the row reflects, which the helper keeps.
   */
  readonly columns: { readonly [K in keyof Row & string]: string };
  /** Further statements for the table under a physical name (indexes). */
  readonly indexes?: (table: string) => string[];
}

/**
 * Events of another stream that delete a row: a column leaves its table by ColumnRemoved, appended to
 * the table's stream. Such an event carries that other stream's revision, not the row's, so it is not
 * weighed against the row's revision: it deletes the row whatever the row's revision, and the row's
 * own stream starts over from `initialState` should an event of it come after (in the same batch or
 * later), as the row is gone. Applying the same batch again still ends with the same rows.
 */
export interface RemovedBy<R extends DomainEvent, T extends R['type']> {
  /** The other stream's definition: it types `handles` and `idOf`. */
  readonly stream: { readonly evolve: (state: never, event: R) => unknown };
  readonly handles: readonly T[];
  /** The row (the id of the read model's stream) that the event deletes. */
  readonly idOf: (event: RecordedOf<Extract<R, { type: T }>>) => string;
}

export interface SingleStreamOptions<
  S,
  E extends DomainEvent,
  Row extends object,
  R extends DomainEvent,
  T extends R['type'],
> {
  readonly name: string;
  readonly version: number;
  readonly table: SingleStreamTable<Row>;
  /** The feature's stream definition: its own `initialState` and `evolve` fold the row. */
  readonly stream: Pick<StreamDefinition<S, E>, 'initialState' | 'evolve'>;
  /** The stream's event types that change the row. */
  readonly handles: readonly E['type'][];
  /** The stream (row) an event of it belongs to. */
  readonly idOf: (event: RecordedOf<E>) => string;
  /** The row of a state, or undefined when the state has none (not created yet, or deleted). */
  readonly toRow: (state: S) => Row | undefined;
  /** The state a stored row stands for: what `evolve` goes on from. */
  readonly fromRow: (row: Row) => S;
  readonly removedBy?: RemovedBy<R, T>;
}

/** Column types node-pg returns as the value JSON would carry (its parsers: strings, numbers, objects). */
const JSON_SHAPED = new Set([
  'text',
  'jsonb',
  'json',
  'boolean',
  'double precision',
  'real',
  'integer',
  'smallint',
]);

/** One row as the batch leaves it: `state` undefined once deleted; `stored` if the table held it before. */
interface Slot<S> {
  state: S | undefined;
  revision: bigint | undefined;
  stored: boolean;
  changed: boolean;
}

/**
 * A read model of one row per stream, folded by the stream's own `evolve`: the row is exactly the state
 * the stream's commands decide on (through `toRow`). Per batch, at most three statements whatever its
 * size: the rows it touches read once and locked (nothing moves them between the read and the write),
 * the events folded in memory in log order, then one upsert and one delete. An event at or below the
 * row's revision is a no-op, so re-applying a batch changes nothing.
 */
export function singleStreamProjection<
  S,
  E extends DomainEvent,
  Row extends object,
  R extends DomainEvent = never,
  T extends R['type'] = never,
>(options: SingleStreamOptions<S, E, Row, R, T>): Projection<E | Extract<R, { type: T }>> {
  type Removal = Extract<R, { type: T }>;
  type Handled = E | Removal;
  const { table, removedBy } = options;
  const columns = Object.entries(table.columns) as [string, string][];
  const keyType = table.columns[table.key];
  const names = [...columns.map(([name]) => name), 'revision'].join(', ');
  const recordset = [...columns.map(([name, type]) => `${name} ${type}`), 'revision bigint'].join(', ');
  const updates = [...columns.map(([name]) => name), 'revision']
    .filter((name) => name !== table.key)
    .map((name) => `${name} = EXCLUDED.${name}`)
    .join(', ');
  // A column node-pg already hands back in its JSON shape is read as it is (cheaper); any other through
  // to_json, so that it comes back exactly as it is written (a timestamp as ISO text, not a Date).
  const reads = [
    ...columns.map(([name, type]) =>
      JSON_SHAPED.has(type.toLowerCase()) ? name : `to_json(${name}) AS ${name}`,
    ),
    'revision::text AS revision',
  ].join(', ');
  const own = new Set<string>(options.handles);
  const removals = new Set<string>(removedBy?.handles ?? []);

  const createTable = (t: string) => {
    const defined = columns.map(
      ([name, type]) => `${name} ${type} ${name === table.key ? 'PRIMARY KEY' : 'NOT NULL'}`,
    );
    return `CREATE TABLE ${t} (\n  ${[...defined, 'revision bigint NOT NULL'].join(',\n  ')}\n)`;
  };

  /** The batch's events in log order on top of the stored rows: the same result as one event at a time. */
  function fold(
    events: readonly RecordedOf<Handled>[],
    ids: readonly string[],
    stored: Map<string, Slot<S>>,
  ) {
    const slots = new Map<string, Slot<S>>();
    events.forEach((event, i) => {
      const id = ids[i]!;
      let slot = slots.get(id);
      if (!slot) {
        slot = stored.get(id) ?? { state: undefined, revision: undefined, stored: false, changed: false };
        slots.set(id, slot);
      }
      if (removals.has(event.type)) {
        slot.state = undefined;
        slot.revision = undefined;
      } else {
        if (slot.revision !== undefined && event.revision <= slot.revision) return;
        // The log hands over an event of the stream's union (the runner passes only handled types).
        slot.state = options.stream.evolve(
          slot.state ?? options.stream.initialState(),
          event as unknown as E,
        );
        slot.revision = event.revision;
      }
      slot.changed = true;
    });
    return slots;
  }

  async function apply(events: readonly RecordedOf<Handled>[], { tx, table: physical }: ApplyContext) {
    const mine = events.filter((e) => own.has(e.type) || removals.has(e.type));
    const ids = mine.map((e) =>
      removals.has(e.type) ? removedBy!.idOf(e as RecordedOf<Removal>) : options.idOf(e as RecordedOf<E>),
    );
    if (ids.length === 0) return;
    const t = physical(table.name);
    const { rows } = await tx.query<Row & { revision: string }>(
      `SELECT ${reads} FROM ${t} WHERE ${table.key} = ANY($1::${keyType}[]) FOR UPDATE`,
      [[...new Set(ids)]],
    );
    const stored = new Map<string, Slot<S>>();
    for (const row of rows) {
      const slot = {
        state: options.fromRow(row),
        revision: BigInt(row.revision),
        stored: true,
        changed: false,
      };
      stored.set(String(row[table.key]), slot);
    }
    const upserts: object[] = [];
    const deletes: string[] = [];
    for (const [id, slot] of fold(mine, ids, stored)) {
      if (!slot.changed) continue;
      const row = slot.state === undefined ? undefined : options.toRow(slot.state);
      if (row) upserts.push({ ...row, revision: String(slot.revision) });
      else if (slot.stored) deletes.push(id);
    }
    if (deletes.length > 0)
      await tx.query(`DELETE FROM ${t} WHERE ${table.key} = ANY($1::${keyType}[])`, [deletes]);
    if (upserts.length === 0) return;
    // The fold already weighed each event against the locked row, so the upsert writes its result
    // whole, unguarded (a row deleted and made again in one batch may end below its old revision).
    // One JSON parameter: cheaper than pg's array-literal escaping of every value.
    await tx.query(
      `INSERT INTO ${t} (${names}) SELECT ${names} FROM json_to_recordset($1::json) AS r(${recordset})
       ON CONFLICT (${table.key}) DO UPDATE SET ${updates}`,
      [JSON.stringify(upserts)],
    );
  }

  const projection: Projection<Handled> = {
    name: options.name,
    version: options.version,
    // The stream's types and the removals' types: TypeScript does not see that they make up Handled's.
    handles: [...options.handles, ...(removedBy?.handles ?? [])] as unknown as Handled['type'][],
    tables: { [table.name]: (t) => [createTable(t), ...(table.indexes?.(t) ?? [])] },
    apply,
  };
  return projection;
}
