import * as assert from 'uvu/assert';
import { comparePositions, type RecordedEvent } from '../../src/event-store/port.ts';
import { type Answer, call } from './accounts.ts';
import type { ServedApp } from './app.ts';
import { eventually } from './eventually.ts';

/*
 * API specs (conventions 10 and 17): given the streams as they stand, when a request, then its answer
 * and the events it appended, with their metadata.
 *
 *   await givenStreams(t, { [tableStream.name(id)]: [created] });
 *   const when = await whenRequest(t, 'PATCH', `/api/tables/${id}`, { headers: bearer(key), body });
 *   thenAnswered(when, 200);
 *   thenAppended(when, keyId, [{ stream, type: 'TableRenamed', data: { ... } }]);
 *
 * `t` is an app over the in-memory store (memory-app.ts: routes that read no read model, no database)
 * or over PostgreSQL (app.ts: every route, its read models kept by its projections).
 */

/** The streams before the request: stream name -> its events, oldest first. */
export type GivenStreams = Record<string, readonly { type: string; data: unknown }[]>;

/** Who wrote the given events: nobody a spec asserts on. */
const GIVEN_METADATA = { correlationId: 'given', actor: 'system:test' };

/**
 * An API spec's "given": the streams appended as they are, in one batch. Each must be new (a spec's
 * given is the whole of a stream); an event its schema refuses fails the spec here.
 */
export async function givenStreams(t: Pick<ServedApp, 'deps'>, streams: GivenStreams): Promise<void> {
  const outcomes = await t.deps.store.appendToStreams(
    Object.entries(streams).map(([stream, events]) => ({
      stream,
      events: events.map(({ type, data }) => ({ type, data, metadata: GIVEN_METADATA })),
      expectedRevision: 'no_stream' as const,
    })),
  );
  for (const outcome of outcomes) if (!outcome.ok) throw outcome.error;
}

/** What a request did: its answer, and the events it appended to the log, in log order. */
export interface Requested {
  answer: Answer;
  appended: RecordedEvent[];
}

/**
 * An API spec's "when": one request, and the events the log gained meanwhile, read from the log's head
 * before it. The app's store must have no other writer while it runs (a suite's tests run one after
 * another; projections do not append).
 */
export async function whenRequest(
  t: Pick<ServedApp, 'app' | 'deps'>,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Requested> {
  const { store } = t.deps;
  const before = await store.head();
  const answer = await call(t.app, method, path, options);
  const head = await store.head();
  if (comparePositions(head, before) === 0) return { answer, appended: [] };
  // The log is read only below the oldest transaction still running (no event can appear behind a
  // reader later), so a transaction of something else can hold the request's events back a moment.
  const appended = await eventually('the events the request appended to be readable', async () => {
    const read = await store.readAll({ from: before, limit: 1000 });
    const last = read.at(-1);
    return last && comparePositions(last.position, head) >= 0 ? read : undefined;
  });
  return { answer, appended };
}

export interface ExpectedEvent {
  stream: string;
  type: string;
  data: unknown;
  /** Default 1. */
  schemaVersion?: number;
}

/**
 * An API spec's "then": exactly these events, in this order, each stamped with who asked and for which
 * request: `correlationId` the request id the answer carries (`x-request-id`), `actor` the API key id,
 * and the schema version of its type. An empty list: the request changed nothing.
 */
export function thenAppended(
  { answer, appended }: Requested,
  actor: string,
  expected: ExpectedEvent[],
): void {
  assert.equal(
    appended.map(({ stream, type, data }) => ({ stream, type, data })),
    expected.map(({ stream, type, data }) => ({ stream, type, data })),
  );
  const correlationId = answer.headers['x-request-id'];
  assert.ok(correlationId, 'the answer carries its request id');
  appended.forEach((event, i) => {
    const schemaVersion = expected[i]!.schemaVersion ?? 1;
    assert.equal(event.metadata, { correlationId, actor, schemaVersion }, `metadata of ${event.type}`);
  });
}

/**
 * An API spec's "then" for the answer: its status (the body shown when it is another) and, when given,
 * its whole body. Returns the body for a closer look.
 */
// biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON that tests pick apart
export function thenAnswered({ answer }: Requested, status: number, body?: unknown): any {
  assert.is(answer.status, status, JSON.stringify(answer.body));
  if (body !== undefined) assert.equal(answer.body, body);
  return answer.body;
}
