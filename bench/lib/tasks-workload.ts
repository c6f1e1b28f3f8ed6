import { TASKS } from '../../projections/tasks/tasks.ts';
import { enrollmentIdOf, leadEnrollmentsStream, sequenceStream } from '../../src/domain/sequences/streams.ts';
import { taskStream } from '../../src/domain/tasks/task.ts';
import type { EventStore, NewEvent, StreamAppend } from '../../src/event-store/port.ts';
import { randomId } from '../../src/ids.ts';

/**
 * The tasks benchmark's data: tasks of one organization drawn from a seeded generator, the query both
 * sides of the comparison answer, and the streams of a sequence and its enrollments.
 */
const TYPES = ['email', 'call', 'linkedin', 'manual'] as const;
const WORDS = ['renewal', 'intro', 'follow-up', 'demo', 'pricing'];
const ASSIGNEES = Array.from({ length: 20 }, (_, i) => `usr_bench${String(i).padStart(2, '0')}`);
const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(2026, 0, 1);

/** The 5-rule filter (AND) and the sort the query asks: a few hundred of 100,000 tasks match. */
export const FILTER = {
  mode: 'AND',
  filters: [
    { columnKey: 'status', operator: 'equals', value: 'pending' },
    { columnKey: 'type', operator: 'equals', value: 'call' },
    { columnKey: 'assigneeUserId', operator: 'equals', value: ASSIGNEES[3] },
    { columnKey: 'dueAt', operator: 'before', value: new Date(EPOCH + 60 * DAY_MS).toISOString() },
    { columnKey: 'title', operator: 'contains', value: 'renewal' },
  ],
};
export const SORT = 'dueAt';
export const LIMIT = 50;

/** The same query as someone who knows the read model and its indexes writes it (exact values, byte order). */
export const HAND_WRITTEN = `SELECT r.id, r.cells FROM ${TASKS} r
  WHERE r.organization_id = $1 AND r.cells->>'status' = 'pending' AND r.cells->>'type' = 'call'
    AND r.cells->>'assigneeUserId' = $2 AND (r.cells->>'dueAt') COLLATE "C" < $3
    AND strpos(lower(r.cells->>'title'), 'renewal') > 0
  ORDER BY (r.cells->>'dueAt') COLLATE "C", r.id LIMIT ${LIMIT + 1}`;

/** HAND_WRITTEN's parameters for the tasks of `organizationId`: the filter's assignee and due time. */
export const handWrittenValues = (organizationId: string): unknown[] => [
  organizationId,
  ASSIGNEES[3],
  FILTER.filters[3]!.value,
];

/** Task `i`: created (due somewhere in 120 days), and about half of them since completed or skipped. */
export function taskAppend(organizationId: string, i: number, next: () => number): StreamAppend {
  const taskId = randomId('task');
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const due = EPOCH + Math.floor(next() * 120 * DAY_MS);
  const at = new Date(EPOCH - DAY_MS).toISOString();
  const events: NewEvent[] = [
    {
      type: 'TaskCreated',
      data: {
        taskId,
        organizationId,
        type: pick(TYPES),
        title: `${pick(WORDS)} with customer ${i}`,
        notes: null,
        dueAt: new Date(due).toISOString(),
        assigneeUserId: pick(ASSIGNEES),
        leadId: null,
        sequenceId: null,
        enrollmentId: null,
        stepIndex: null,
        at,
      },
    },
  ];
  const end = next();
  if (end < 0.5) {
    const to = end < 0.4 ? 'completed' : 'skipped';
    events.push({ type: 'TaskStatusChanged', data: { taskId, from: 'pending', to, at } });
  }
  return { stream: taskStream.name(taskId), events, expectedRevision: 'no_stream' };
}

/** A new ACTIVE sequence of one step, a call due at once. */
export function sequenceAppend(sequenceId: string, organizationId: string, at: string): StreamAppend {
  return {
    stream: sequenceStream.name(sequenceId),
    expectedRevision: 'no_stream',
    events: [
      {
        type: 'SequenceCreated',
        data: {
          sequenceId,
          organizationId,
          name: 'Bench',
          sourceTableId: null,
          steps: [{ type: 'call', waitDays: 0 }],
          clonedFrom: null,
          at,
        },
      },
      { type: 'SequenceStatusChanged', data: { sequenceId, from: 'DRAFT', to: 'ACTIVE', at } },
    ],
  };
}

/** A new lead enrolled in the sequence, its tasks assigned to the first assignee. */
export function enrollmentAppend(sequenceId: string, organizationId: string, at: string): StreamAppend {
  const leadId = randomId('led');
  const data = {
    enrollmentId: enrollmentIdOf(leadId, sequenceId),
    organizationId,
    sequenceId,
    leadId,
    assigneeUserId: ASSIGNEES[0]!,
    senderAccountIds: {},
    at,
  };
  return {
    stream: leadEnrollmentsStream.name(leadId),
    expectedRevision: 'no_stream',
    events: [{ type: 'LeadEnrolled', data }],
  };
}

/** Appends `chunk` streams a call with appendToStreams; the first failed append is thrown. */
export async function appendInChunks(
  store: EventStore,
  appends: StreamAppend[],
  chunk: number,
): Promise<void> {
  for (let i = 0; i < appends.length; i += chunk) {
    const outcomes = await store.appendToStreams(appends.slice(i, i + chunk));
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}
