import type { Pool } from '../../src/db/pool.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { START } from '../../src/event-store/port.ts';
import { applyContext } from '../../src/projection/apply-context.ts';
import type { Projection } from '../../src/projection/types.ts';

/**
 * A small read model for the operations tests: notes written and deleted, plus a per-author count in
 * a second table, so that a rebuild swaps more than one table. Event types carry a test prefix.
 */
export const NOTE_WRITTEN = 'OpsTestNoteWritten';
export const NOTE_DELETED = 'OpsTestNoteDeleted';

/** Flip to make `poison: true` events throw (a poison event); off, they apply like any other. */
export const poisonSwitch = { armed: true };

interface NoteData {
  noteId: string;
  author: string;
  text: string;
  poison?: boolean;
}

export function notesProjection(options: { version?: number; name?: string; extraColumn?: boolean } = {}) {
  const extra = options.extraColumn ? ', text_length integer NOT NULL DEFAULT 0' : '';
  const projection: Projection = {
    name: options.name ?? 'ops_notes',
    version: options.version ?? 1,
    handles: [NOTE_WRITTEN, NOTE_DELETED],
    tables: {
      ops_notes: (t) => [
        `CREATE TABLE ${t} (id text PRIMARY KEY, author text NOT NULL, text text NOT NULL, revision bigint NOT NULL${extra})`,
        `CREATE INDEX ${t}_by_author ON ${t} (author)`,
      ],
      ops_note_authors: (t) => [`CREATE TABLE ${t} (author text PRIMARY KEY, notes integer NOT NULL)`],
    },
    async apply(events, { tx, table }) {
      for (const event of events) {
        if (event.type === NOTE_WRITTEN) {
          const d = event.data as NoteData;
          if (d.poison && poisonSwitch.armed) throw new Error(`poison note ${d.noteId}`);
          const inserted = await tx.query(
            `INSERT INTO ${table('ops_notes')} (id, author, text, revision${options.extraColumn ? ', text_length' : ''})
             VALUES ($1, $2, $3, $4${options.extraColumn ? ', length($3)' : ''})
             ON CONFLICT (id) DO UPDATE SET text = excluded.text, revision = excluded.revision
               ${options.extraColumn ? ', text_length = excluded.text_length' : ''}
             WHERE ${table('ops_notes')}.revision < excluded.revision
             RETURNING (xmax = 0) AS created`,
            [d.noteId, d.author, d.text, String(event.revision)],
          );
          if (inserted.rows[0]?.created)
            await tx.query(
              `INSERT INTO ${table('ops_note_authors')} (author, notes) VALUES ($1, 1)
               ON CONFLICT (author) DO UPDATE SET notes = ${table('ops_note_authors')}.notes + 1`,
              [d.author],
            );
        } else if (event.type === NOTE_DELETED) {
          const { noteId } = event.data as { noteId: string };
          const deleted = await tx.query(`DELETE FROM ${table('ops_notes')} WHERE id = $1 RETURNING author`, [
            noteId,
          ]);
          const author = deleted.rows[0]?.author;
          if (author)
            await tx.query(`UPDATE ${table('ops_note_authors')} SET notes = notes - 1 WHERE author = $1`, [
              author,
            ]);
        }
      }
    },
  };
  return projection;
}

export const noteStream = (noteId: string) => `opsnote-${noteId}`;

/** Appends `count` note events over `notes` notes (writes, rewrites and a few deletes). */
export async function writeNotes(
  store: EventStore,
  count: number,
  options: { notes?: number; seed?: string } = {},
) {
  const notes = options.notes ?? 50;
  const seed = options.seed ?? 'n';
  for (let i = 0; i < count; i++) {
    const id = `${seed}${i % notes}`;
    if (i % 17 === 16) await store.append(noteStream(id), [{ type: NOTE_DELETED, data: { noteId: id } }]);
    else
      await store.append(noteStream(id), [
        { type: NOTE_WRITTEN, data: { noteId: id, author: `a${i % 7}`, text: `text ${i}` } },
      ]);
  }
}

/** The tables' rows, sorted, for comparing two builds. */
export async function snapshotNotes(pool: Pool, names = { notes: 'ops_notes', authors: 'ops_note_authors' }) {
  const notes = await pool.query(`SELECT id, author, text FROM ${names.notes} ORDER BY id`);
  const authors = await pool.query(`SELECT author, notes FROM ${names.authors} ORDER BY author`);
  return { notes: notes.rows, authors: authors.rows };
}

/**
 * A fresh build: the same projection code applied to the whole log at once into throwaway tables.
 * Deleted notes keep a stream revision history, so rewrites after a delete apply as new rows.
 */
export function freshBuild(store: EventStore, pool: Pool, projection: Projection) {
  return buildAside(store, pool, projection, (physical) =>
    snapshotNotes(pool, { notes: physical('ops_notes'), authors: physical('ops_note_authors') }),
  );
}

/** Every row of every table of a projection, as sorted JSON text: two builds compare equal or not. */
export async function tableRows(
  pool: Pool,
  projection: Projection,
  physical: (logical: string) => string = (t) => t,
) {
  const out: Record<string, string[]> = {};
  for (const logical of Object.keys(projection.tables)) {
    const { rows } = await pool.query<{ r: string }>(
      `SELECT row_to_json(x)::text AS r FROM ${physical(logical)} x ORDER BY 1`,
    );
    out[logical] = rows.map((row) => row.r);
  }
  return out;
}

/** A fresh build of any projection into throwaway tables: its rows, as `tableRows` gives them. */
export function freshBuildRows(store: EventStore, pool: Pool, projection: Projection) {
  return buildAside(store, pool, projection, (physical) => tableRows(pool, projection, physical));
}

/** Builds `projection` from the whole log into tables of its own, reads them with `read`, drops them. */
async function buildAside<T>(
  store: EventStore,
  pool: Pool,
  projection: Projection,
  read: (physical: (logical: string) => string) => Promise<T>,
): Promise<T> {
  const suffix = `_fresh_${Math.random().toString(36).slice(2, 8)}`;
  const physical = (t: string) => t + suffix;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const [logical, ddl] of Object.entries(projection.tables))
      for (const s of ddl(physical(logical))) await client.query(s);
    let from = START;
    for (;;) {
      const page = await store.readAll({ from, limit: 1000 });
      if (page.length === 0) break;
      const handled = page.filter((e) => projection.handles.includes(e.type));
      if (handled.length > 0) await projection.apply(handled, applyContext(client, physical));
      from = page[page.length - 1]!.position;
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  const result = await read(physical);
  for (const logical of Object.keys(projection.tables)) await pool.query(`DROP TABLE ${physical(logical)}`);
  return result;
}
