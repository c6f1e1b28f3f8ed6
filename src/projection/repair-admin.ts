import type { Pool } from '../db/pool.ts';
import { inTransaction } from '../db/pool.ts';
import type { EventStore, RecordedEvent } from '../event-store/port.ts';
import { comparePositions } from '../event-store/port.ts';
import { projectionAudit } from './audit.ts';
import { checkpoints } from './checkpoints.ts';
import { advisoryLockHeld, lockKeys } from './locks.ts';
import { rebuildRecords } from './rebuild-records.ts';
import type { Projection } from './types.ts';

/** An operator's request that does not fit the projection's state; the message says what does. */
export class ProjectionAdminError extends Error {}

const SEARCH_PAGE = 1000;
const SEARCH_PAGES = 20;

/**
 * Retry: clears the failure so the runner (which re-reads its row every second while failed) applies
 * the failed event again. Audited with the event and the error it had.
 */
export async function retryProjection(
  pool: Pool,
  name: string,
  actor: string,
): Promise<{ eventId: string | null; error: string | null }> {
  return inTransaction(pool, async (tx) => {
    const row = await checkpoints.get(tx, name, true);
    if (!row) throw new ProjectionAdminError(`projection ${name} has no checkpoint (never started)`);
    if (row.state !== 'failed')
      throw new ProjectionAdminError(`projection ${name} is not failed (${row.state})`);
    await tx.query(
      `UPDATE projection_checkpoints SET state = 'catching_up', last_error = NULL, failed_event_id = NULL,
         updated_at = now() WHERE name = $1`,
      [name],
    );
    await projectionAudit.record(tx, {
      projection: name,
      action: 'retry',
      actor,
      eventId: row.failedEventId,
      detail: { error: row.lastError },
    });
    return { eventId: row.failedEventId, error: row.lastError };
  });
}

/** The events after the checkpoint up to and including `eventId` (the runner stops right before it). */
async function eventsUpTo(store: EventStore, from: RecordedEvent['position'], eventId: string) {
  const seen: RecordedEvent[] = [];
  let cursor = from;
  for (let i = 0; i < SEARCH_PAGES; i++) {
    const page = await store.readAll({ from: cursor, limit: SEARCH_PAGE });
    for (const event of page) {
      seen.push(event);
      if (event.id === eventId) return seen;
    }
    if (page.length < SEARCH_PAGE) break;
    cursor = page[page.length - 1]!.position;
  }
  return undefined;
}

/**
 * Skip: moves the checkpoint past the poison event without applying it, so the runner goes on with
 * the next one. Only the event the projection is stopped at can be skipped. Audited.
 */
export async function skipEvent(
  store: EventStore,
  pool: Pool,
  projection: Projection,
  eventId: string,
  actor: string,
): Promise<{ event: RecordedEvent }> {
  const name = projection.name;
  const before = await checkpoints.get(pool, name);
  if (!before) throw new ProjectionAdminError(`projection ${name} has no checkpoint (never started)`);
  if (before.state !== 'failed' || before.failedEventId !== eventId)
    throw new ProjectionAdminError(
      before.state === 'failed'
        ? `projection ${name} is stopped at event ${before.failedEventId}, not ${eventId}`
        : `projection ${name} is not failed (${before.state}); only the event it stopped at can be skipped`,
    );
  const events = await eventsUpTo(store, before.position, eventId);
  const event = events?.at(-1);
  if (!events || !event)
    throw new ProjectionAdminError(`event ${eventId} is not just after ${name}'s checkpoint`);
  // Moving the checkpoint must not pass any other event this projection would have applied.
  const passed = events.slice(0, -1).filter((e) => projection.handles.includes(e.type));
  if (passed.length > 0)
    throw new ProjectionAdminError(
      `skipping ${eventId} would also pass ${passed.length} unapplied event(s) of ${name}; retry first`,
    );
  await inTransaction(pool, async (tx) => {
    const row = await checkpoints.get(tx, name, true);
    if (!row || row.failedEventId !== eventId || comparePositions(row.position, before.position) !== 0)
      throw new ProjectionAdminError(`projection ${name} changed meanwhile; look at its status again`);
    await tx.query(
      `UPDATE projection_checkpoints SET commit_position = $2, prepare_position = $3, state = 'catching_up',
         last_error = NULL, failed_event_id = NULL, updated_at = now() WHERE name = $1`,
      [name, String(event.position.commit), String(event.position.prepare)],
    );
    await projectionAudit.record(tx, {
      projection: name,
      action: 'skip',
      actor,
      eventId,
      detail: {
        error: row.lastError,
        type: event.type,
        stream: event.stream,
        revision: String(event.revision),
        position: { commit: String(event.position.commit), prepare: String(event.position.prepare) },
      },
    });
  });
  return { event };
}

/**
 * Abandon: drops a rebuild that is not running (interrupted): its shadow tables, checkpoint and record;
 * the live tables are untouched. Refused while a process works on it. Audited when there was one.
 */
export async function abandonRebuild(pool: Pool, name: string, actor: string): Promise<boolean> {
  if (await advisoryLockHeld(pool, lockKeys.rebuild(name)))
    throw new ProjectionAdminError(`the rebuild of ${name} is running; stop it before abandoning it`);
  const dropped = await rebuildRecords.abandon(pool, name);
  if (dropped) await projectionAudit.record(pool, { projection: name, action: 'rebuild_abandoned', actor });
  return dropped;
}
