import { createTask } from '../../commands/tasks/create-task.ts';
import { ENROLLMENTS } from '../../projections/sequences/enrollments.ts';
import { SEQUENCE_TASKS_KIND, type SequenceTaskWork } from '../../projections/tasks/sequence-tasks.ts';
import { handleCommand, loadStates } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { recordStepDone } from '../../src/domain/sequences/progress.ts';
import {
  leadEnrollmentsStream,
  parseEnrollmentId,
  sequenceStream,
} from '../../src/domain/sequences/streams.ts';
import { taskStream } from '../../src/domain/tasks/task.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { derivedId } from '../../src/ids.ts';
import { enqueue, type WorkItem } from '../../src/work/queue.ts';
import type { Outcome } from '../../src/work/worker.ts';

const DAY_MS = 24 * 3_600_000;

/** The task of an enrollment's step: one id per (enrollment, step), so a repeat makes nothing new. */
export const stepTaskId = (enrollmentId: string, stepIndex: number) =>
  derivedId('task', `${enrollmentId}:${stepIndex}`);

async function load(deps: ServiceDeps, enrollmentId: string) {
  const ids = parseEnrollmentId(enrollmentId);
  if (!ids) return undefined;
  // Both streams in one round trip: thousands of enrollments may come due at once.
  const [enrollments, { state: sequence }] = await loadStates(deps.store, [
    { stream: leadEnrollmentsStream.name(ids.leadId), definition: leadEnrollmentsStream },
    { stream: sequenceStream.name(ids.sequenceId), definition: sequenceStream },
  ] as const);
  const enrollment = enrollments.state.get(ids.sequenceId);
  if (!enrollment || enrollment.enrollmentId !== enrollmentId || !sequence.exists) return undefined;
  return { ids, enrollment, sequence };
}

/**
 * The enrollment's next step: its task once it is due (the first at enrollment, each other `waitDays`
 * after the previous step was done), a retry at the due time before. Held while the enrollment or
 * its sequence is not active: resuming either enqueues this again (the reactor).
 */
async function makeStepTask(deps: ServiceDeps, item: WorkItem, enrollmentId: string): Promise<Outcome> {
  const loaded = await load(deps, enrollmentId);
  if (!loaded) return { status: 'done' };
  const { enrollment, sequence } = loaded;
  if (enrollment.status !== 'active' || sequence.status !== 'ACTIVE') return { status: 'done' };
  const stepIndex = enrollment.stepsDone;
  const step = sequence.steps[stepIndex];
  if (!step) return { status: 'done' };
  const due =
    stepIndex === 0
      ? new Date(enrollment.enrolledAt)
      : new Date(Date.parse(enrollment.lastStepAt!) + step.waitDays * DAY_MS);
  if (deps.clock() < due) return { status: 'retry', at: due, error: 'not due yet' };
  const taskId = stepTaskId(enrollmentId, stepIndex);
  await handleCommand({
    store: deps.store,
    stream: taskStream.name(taskId),
    decider: createTask,
    command: {
      taskId,
      organizationId: enrollment.organizationId,
      type: step.type,
      title: `${sequence.name}: step ${stepIndex + 1} of ${sequence.steps.length} (${step.type})`,
      notes: null,
      dueAt: due.toISOString(),
      assigneeUserId: enrollment.assigneeUserId,
      leadId: enrollment.leadId,
      sequenceId: enrollment.sequenceId,
      enrollmentId,
      stepIndex,
    },
    metadata: { correlationId: item.id, actor: 'system:sequence-tasks' },
    now: deps.clock(),
  });
  return { status: 'done' };
}

/** A sequence became ACTIVE: each of its active enrollments looks at its next step. */
async function wakeSequence(deps: ServiceDeps, item: WorkItem, sequenceId: string): Promise<Outcome> {
  const { rows } = await deps.pool.query<{ id: string }>(
    `SELECT id FROM ${ENROLLMENTS} WHERE sequence_id = $1 AND status = 'active'`,
    [sequenceId],
  );
  const work = (enrollmentId: string): SequenceTaskWork => ({ op: 'step', enrollmentId });
  await enqueue(
    deps.pool,
    rows.map((r) => ({
      id: `${SEQUENCE_TASKS_KIND}:step:${r.id}:${item.id}`,
      kind: SEQUENCE_TASKS_KIND,
      organizationId: item.organizationId,
      payload: work(r.id),
    })),
  );
  deps.work?.nudge();
  return { status: 'done' };
}

/** A step's task was done: the enrollment moves on (the last step finishes it). */
async function advance(
  deps: ServiceDeps,
  item: WorkItem,
  work: Extract<SequenceTaskWork, { op: 'advance' }>,
) {
  const loaded = await load(deps, work.enrollmentId);
  if (!loaded) return { status: 'done' } as const;
  await handleCommand({
    store: deps.store,
    stream: leadEnrollmentsStream.name(loaded.ids.leadId),
    decider: recordStepDone,
    command: { ...work, sequenceId: loaded.ids.sequenceId, stepCount: loaded.sequence.steps.length },
    metadata: { correlationId: item.id, actor: 'system:sequence-tasks' },
    now: deps.clock(),
  });
  return { status: 'done' } as const;
}

/** Makes sequence tasks as their steps come due, and advances enrollments as their tasks are done. */
export const sequenceTasksWorker: WorkerFactory = (deps) => ({
  kind: SEQUENCE_TASKS_KIND,
  concurrency: 8,
  async handle(item): Promise<Outcome> {
    const work = item.payload as SequenceTaskWork;
    if (work.op === 'step') return makeStepTask(deps, item, work.enrollmentId);
    if (work.op === 'sequence') return wakeSequence(deps, item, work.sequenceId);
    return advance(deps, item, work);
  },
});
