import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteTask } from '../../../commands/tasks/edit-task.ts';
import { taskMessageId } from '../../../processes/tasks/email-worker.ts';
import { splitAnswer } from '../../../processes/tasks/llm-draft.ts';
import type { TaskEvent } from '../../../src/domain/tasks/events.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const at = '2024-05-01T10:00:00.000Z';
const created = (sequence: boolean): TaskEvent => ({
  type: 'TaskCreated',
  data: {
    taskId: 'task_a',
    organizationId: 'org_a',
    type: 'call',
    title: 'Call',
    notes: null,
    dueAt: at,
    assigneeUserId: null,
    leadId: sequence ? 'led_a' : null,
    sequenceId: sequence ? 'seq_a' : null,
    enrollmentId: sequence ? 'enr_a' : null,
    stepIndex: sequence ? 0 : null,
    at,
  },
});
const now = NOW.toISOString();
const deletedEvent: TaskEvent = { type: 'TaskDeleted', data: { taskId: 'task_a', at: now } };

test('deleting an open sequence task skips it first: its enrollment counts the step as done', () => {
  given(deleteTask, [created(true)])
    .when({ taskId: 'task_a' })
    .thenEvents([
      { type: 'TaskStatusChanged', data: { taskId: 'task_a', from: 'pending', to: 'skipped', at: now } },
      deletedEvent,
    ]);
});

test('deleting a done sequence task, or a task made by hand, only deletes it', () => {
  const completed: TaskEvent = {
    type: 'TaskStatusChanged',
    data: { taskId: 'task_a', from: 'pending', to: 'completed', at },
  };
  given(deleteTask, [created(true), completed])
    .when({ taskId: 'task_a' })
    .thenEvents([deletedEvent]);
  given(deleteTask, [created(false)])
    .when({ taskId: 'task_a' })
    .thenEvents([deletedEvent]);
  given(deleteTask, [created(true), deletedEvent])
    .when({ taskId: 'task_a' })
    .refuses('not_found');
});

test("a model's answer: a first line 'Subject: ...' is the subject, the rest the body; else all of it is the body", () => {
  assert.equal(splitAnswer('Subject: Hello Ada\n\nDear Ada,\nhi.\n'), {
    subject: 'Hello Ada',
    body: 'Dear Ada,\nhi.',
  });
  assert.equal(splitAnswer('  subject:x\r\nbody'), { subject: 'x', body: 'body' });
  assert.equal(splitAnswer('Dear Ada,\nSubject: not a subject line'), {
    body: 'Dear Ada,\nSubject: not a subject line',
  });
  assert.equal(splitAnswer('Subject: only a subject'), { body: 'Subject: only a subject' });
});

test("a task email's Message-ID is the task's, at the sender's domain: the same on every attempt", () => {
  assert.is(taskMessageId('task_a', 'mailer@ours.example'), '<task_a@ours.example>');
  assert.is(taskMessageId('task_a', 'mailer@ours.example'), taskMessageId('task_a', 'mailer@ours.example'));
  assert.is.not(
    taskMessageId('task_b', 'mailer@ours.example'),
    taskMessageId('task_a', 'mailer@ours.example'),
  );
  assert.is(taskMessageId('task_a', 'no-domain'), '<task_a@tasks.invalid>');
});

test.run();
