import * as assert from 'uvu/assert';
import { sequenceTasksWorker } from '../../../processes/tasks/sequence-worker.ts';
import { SEQUENCE_TASKS_KIND } from '../../../projections/tasks/sequence-tasks.ts';
import { loadState } from '../../../src/command.ts';
import type { Pool } from '../../../src/db/pool.ts';
import { leadEnrollmentsStream } from '../../../src/domain/sequences/streams.ts';
import { taskStream } from '../../../src/domain/tasks/task.ts';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { activeSequence, addMember, createLead, enroll, sequenceAction } from '../../support/sequences.ts';
import { DAY_MS, enrollmentTasks, type TasksContext, tasksSuite } from '../../support/tasks.ts';

const test = tasksSuite('sequence tasks: generated as steps come due, advancing and finishing enrollments');

const steps = [
  { type: 'email', waitDays: 0, subject: 'Hi {{firstName}}', body: 'Hello' },
  { type: 'call', waitDays: 2 },
  { type: 'manual', waitDays: 3 },
];

/** The enrollment's pending step item: its run time once the worker has put it off until due. */
async function heldUntil(t: { db: { pool: Pool } }, enrollmentId: string, due: number) {
  await eventually(`a step item of ${enrollmentId} waiting for ${new Date(due).toISOString()}`, async () => {
    const { rows } = await t.db.pool.query(
      `SELECT 1 FROM work_items WHERE kind = $1 AND payload->>'enrollmentId' = $2 AND status = 'pending' AND run_at = $3`,
      [SEQUENCE_TASKS_KIND, enrollmentId, new Date(due)],
    );
    return rows.length > 0;
  });
}

/** Every work item about the enrollment has been settled: nothing more will happen without an event. */
async function settled(t: { db: { pool: Pool } }, enrollmentId: string) {
  await eventually(`the step items of ${enrollmentId} settled`, async () => {
    const { rows } = await t.db.pool.query(
      `SELECT count(*) FILTER (WHERE status <> 'done') AS open, count(*) AS all FROM work_items
       WHERE kind = $1 AND payload->>'enrollmentId' = $2`,
      [SEQUENCE_TASKS_KIND, enrollmentId],
    );
    return rows[0].open === '0' && rows[0].all !== '0';
  });
}

/** A new lead enrolled (without an assignee) in a new ACTIVE sequence of two steps, and its first step's task. */
async function enrolledTwoSteps(
  ctx: { t: TasksContext['t']; key: string },
  fullName: string,
  second: string,
) {
  const { t, key } = ctx;
  const leadId = await createLead(t.app, key, {
    fullName,
    emailAddresses: [`${fullName.split(' ')[0]}@example.com`],
  });
  const sequenceId = await activeSequence(t.app, key, {
    steps: [
      { type: 'call', waitDays: 0 },
      { type: second, waitDays: 1 },
    ],
  });
  const enrolled = await enroll(t.app, key, sequenceId, { leadIds: [leadId] });
  const enrollmentId = enrolled.body.data[0].enrollmentId as string;
  const [first] = await eventually('the first step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 1 ? tasks : undefined;
  });
  return { leadId, sequenceId, enrollmentId, first: first! };
}

const enrollmentOf = async (ctx: { t: { app: never }; key: string }, sequenceId: string) => {
  const res = await call(ctx.t.app, 'GET', `/api/sequences/${sequenceId}/enrollments`, {
    headers: bearer(ctx.key),
  });
  return res.body.data[0];
};

test('three steps with a moved clock: the first at once, each next waitDays after the previous was done; pausing the enrollment holds the next; the last finishes it', async (ctx) => {
  const { t, key } = ctx;
  const member = await addMember(t.app, key, 'tasks-seq-member@example.com');
  const leadId = await createLead(t.app, key, {
    fullName: 'Ada Lovelace',
    emailAddresses: ['ada@example.com'],
  });
  const sequenceId = await activeSequence(t.app, key, { steps });
  const enrolled = await enroll(t.app, key, sequenceId, { leadIds: [leadId], assigneeUserId: member });
  assert.is(enrolled.status, 200, JSON.stringify(enrolled.body));
  const enrollmentId = enrolled.body.data[0].enrollmentId as string;

  const [first] = await eventually('the first step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 1 ? tasks : undefined;
  });
  assert.is(first!.stepIndex, 0);
  assert.is(first!.type, 'email');
  assert.is(first!.assigneeUserId, member);
  assert.is(first!.leadId, leadId);
  assert.is(first!.sequenceId, sequenceId);
  assert.is(first!.status, 'pending');

  const completed = await call(t.app, 'PATCH', `/api/tasks/${first!.id}`, {
    headers: bearer(key),
    body: { status: 'completed' },
  });
  assert.is(completed.status, 200);
  const doneAt = Date.parse(completed.body.completedAt);
  // The second step waits two days from the completion: its item is put off until then, no task yet.
  await heldUntil(t, enrollmentId, doneAt + 2 * DAY_MS);
  assert.is((await enrollmentTasks(t.app, key, enrollmentId)).length, 1);

  ctx.advance(2 * DAY_MS);
  const second = await eventually('the second step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 2 ? tasks[1] : undefined;
  });
  assert.is(second.stepIndex, 1);
  assert.is(second.type, 'call');
  assert.is(second.dueAt, new Date(doneAt + 2 * DAY_MS).toISOString());

  const skipped = await call(t.app, 'PATCH', `/api/tasks/${second.id}`, {
    headers: bearer(key),
    body: { status: 'skipped' },
  });
  const skippedAt = Date.parse(skipped.body.completedAt);
  await heldUntil(t, enrollmentId, skippedAt + 3 * DAY_MS);
  const paused = await call(t.app, 'POST', `/api/enrollments/${enrollmentId}/pause`, {
    headers: bearer(key),
  });
  assert.is(paused.status, 200);
  ctx.advance(4 * DAY_MS);
  await settled(t, enrollmentId);
  assert.is((await enrollmentTasks(t.app, key, enrollmentId)).length, 2, 'a paused enrollment makes no task');

  await call(t.app, 'POST', `/api/enrollments/${enrollmentId}/resume`, { headers: bearer(key) });
  const third = await eventually('the third step task after resuming', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 3 ? tasks[2] : undefined;
  });
  assert.is(third.type, 'manual');
  assert.is((await enrollmentOf(ctx as never, sequenceId)).status, 'active');
  await call(t.app, 'PATCH', `/api/tasks/${third.id}`, {
    headers: bearer(key),
    body: { status: 'completed' },
  });
  const finished = await eventually('the enrollment finished', async () => {
    const enrollment = await enrollmentOf(ctx as never, sequenceId);
    return enrollment.status === 'finished' ? enrollment : undefined;
  });
  assert.is(finished.finishedReason, 'completed');
  await settled(t, enrollmentId);
  assert.is((await enrollmentTasks(t.app, key, enrollmentId)).length, 3, 'one task per step, no more');
});

test('pausing the sequence holds the due step; activating it again makes the task', async (ctx) => {
  const { t, key } = ctx;
  const { sequenceId, enrollmentId, first } = await enrolledTwoSteps(ctx, 'Grace Hopper', 'call');
  assert.is(first.assigneeUserId, null, 'an enrollment without an assignee makes unassigned tasks');
  const completed = await call(t.app, 'PATCH', `/api/tasks/${first.id}`, {
    headers: bearer(key),
    body: { status: 'completed' },
  });
  await heldUntil(t, enrollmentId, Date.parse(completed.body.completedAt) + DAY_MS);
  assert.is((await sequenceAction(t.app, key, sequenceId, 'pause')).status, 200);
  ctx.advance(2 * DAY_MS);
  await settled(t, enrollmentId);
  assert.is((await enrollmentTasks(t.app, key, enrollmentId)).length, 1, 'a paused sequence makes no task');
  assert.is((await sequenceAction(t.app, key, sequenceId, 'activate')).status, 200);
  const made = await eventually('the second step task after activating', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 2 ? tasks : undefined;
  });
  // A worker killed after making the task and before settling its item: the item is handled again.
  const worker = sequenceTasksWorker(t.deps);
  for (let i = 0; i < 2; i++) {
    const outcome = await worker.handle(
      {
        id: `repeat-${i}`,
        kind: worker.kind,
        organizationId: '',
        groupKey: null,
        payload: { op: 'step', enrollmentId },
        attempts: 1,
        runAt: new Date(),
        createdAt: new Date(),
      },
      new AbortController().signal,
      { owner: 'test' },
    );
    assert.equal(outcome, { status: 'done' });
  }
  assert.equal(await enrollmentTasks(t.app, key, enrollmentId), made, 'the repeat made no second task');
});

test('deleting an open sequence task skips its step: the enrollment moves on instead of waiting for ever; deleting the last one finishes it', async (ctx) => {
  const { t, key } = ctx;
  const { leadId, sequenceId, enrollmentId, first } = await enrolledTwoSteps(ctx, 'Barbara Liskov', 'manual');
  const deleted = await call(t.app, 'DELETE', `/api/tasks/${first.id}`, { headers: bearer(key) });
  assert.is(deleted.status, 204);
  assert.is((await call(t.app, 'GET', `/api/tasks/${first.id}`, { headers: bearer(key) })).status, 404);
  // The task's stream says it was skipped, then deleted; the next step counts from then.
  const { state: gone } = await loadState(t.deps.store, taskStream.name(first.id), taskStream);
  assert.is(gone.life, 'deleted');
  assert.is(gone.status, 'skipped');
  await heldUntil(t, enrollmentId, Date.parse(gone.completedAt!) + DAY_MS);
  const { state: lead } = await loadState(
    t.deps.store,
    leadEnrollmentsStream.name(leadId),
    leadEnrollmentsStream,
  );
  assert.is(lead.get(sequenceId)!.stepsDone, 1);

  ctx.advance(DAY_MS);
  const second = await eventually('the second step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 1 && tasks[0]!.stepIndex === 1 ? tasks[0] : undefined;
  });
  const bulk = await call(t.app, 'POST', '/api/tasks/bulk', {
    headers: bearer(key),
    body: { taskIds: [second!.id], action: 'delete' },
  });
  assert.equal(bulk.body.data, [{ taskId: second!.id, result: 'ok' }]);
  const finished = await eventually('the enrollment finished', async () => {
    const enrollment = await enrollmentOf(ctx as never, sequenceId);
    return enrollment.status === 'finished' ? enrollment : undefined;
  });
  assert.is(finished.finishedReason, 'completed');
});

test.run();
