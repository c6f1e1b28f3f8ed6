/**
 * API specs of the task commands that read only streams (create, which checks its assignee's and
 * lead's streams; PATCH; DELETE), on the in-memory store (conventions 17 and 21): given the streams,
 * when a request, then the answer and the events it appended. The specs that read a read model too (a
 * GET, the query, bulk, email) run on PostgreSQL, in test/integration/tasks/.
 */
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { taskCommands } from '../../../commands/tasks/index.ts';
import { userStream } from '../../../src/domain/accounts/streams.ts';
import { leadStream } from '../../../src/domain/leads/lead-state.ts';
import { taskStream } from '../../../src/domain/tasks/task.ts';
import { randomId } from '../../../src/ids.ts';
import { bearer } from '../../support/accounts.ts';
import { givenStreams, thenAnswered, thenAppended, whenRequest } from '../../support/api-spec.ts';
import { NOW } from '../../support/decider-spec.ts';
import { memoryAppSuite } from '../../support/memory-app.ts';

const test = memoryAppSuite('tasks API specs in memory: create, edit, end, delete', taskCommands, {
  clock: () => NOW,
});

const at = NOW.toISOString();
const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

/** The streams of a member of `organizationId`. */
const member = (organizationId: string, userId: string) => ({
  [userStream.name(userId)]: [
    {
      type: 'MemberAdded',
      data: { userId, organizationId, email: `${userId}@example.com`, firstName: null, lastName: null },
    },
  ],
});

/** The stream of a live lead of `organizationId`. */
const lead = (organizationId: string, leadId: string) => ({
  [leadStream.name(leadId)]: [
    {
      type: 'LeadCreated',
      data: {
        leadId,
        organizationId,
        firstName: null,
        lastName: null,
        fullName: 'Task Lead',
        title: null,
        companyName: null,
        companyDomain: null,
        linkedinUrl: null,
        emailAddresses: [{ address: 'task.lead@example.com', source: 'manual' }],
        phoneNumbers: [],
        sources: [],
        at,
      },
    },
  ],
});

test.before(async ({ t, organizationId, userId }) => {
  // The key's user is a member of its organization, as a bootstrap or POST /api/users makes it.
  await givenStreams(t, member(organizationId, userId));
});

test('POST: 201 with Location and the defaults (manual, pending, the key user, due now), appending TaskCreated; bad input is a 400 naming the field and appends nothing', async ({
  t,
  key,
  keyId,
  organizationId,
  userId,
}) => {
  const when = await whenRequest(t, 'POST', '/api/tasks', {
    headers: bearer(key),
    body: { title: 'Prepare the call', notes: 'ask about budget' },
  });
  const res = thenAnswered(when, 201);
  assert.is(when.answer.headers.location, `/api/tasks/${res.id}`);
  thenAppended(when, keyId, [
    {
      stream: taskStream.name(res.id),
      type: 'TaskCreated',
      data: {
        taskId: res.id,
        organizationId,
        type: 'manual',
        title: 'Prepare the call',
        notes: 'ask about budget',
        dueAt: at,
        assigneeUserId: userId,
        leadId: null,
        sequenceId: null,
        enrollmentId: null,
        stepIndex: null,
        at,
      },
    },
  ]);
  // A user of another organization is no assignee of this one.
  const outsider = randomUUID();
  await givenStreams(t, member(randomUUID(), outsider));
  for (const [body, path] of [
    [{}, 'title'],
    [{ title: 'x', type: 'fax' }, 'type'],
    [{ title: 'x', dueAt: 'tomorrow' }, 'dueAt'],
    [{ title: 'x', assigneeUserId: 'usr_nobody' }, 'assigneeUserId'],
    [{ title: 'x', assigneeUserId: outsider }, 'assigneeUserId'],
    [{ title: 'x', leadId: 'lead_nope' }, 'leadId'],
  ] as const) {
    const bad = await whenRequest(t, 'POST', '/api/tasks', { headers: bearer(key), body });
    assert.equal(paths(thenAnswered(bad, 400)), [path], JSON.stringify(body));
    thenAppended(bad, keyId, []);
  }
});

test('PATCH edits fields and completes or skips once (409 after); DELETE is 204 then 404; every refusal appends nothing', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const assignee = randomUUID();
  const leadId = randomId('led');
  await givenStreams(t, { ...member(organizationId, assignee), ...lead(organizationId, leadId) });
  const created = await whenRequest(t, 'POST', '/api/tasks', {
    headers: bearer(key),
    body: { title: 'Call', type: 'call', leadId },
  });
  const taskId = thenAnswered(created, 201).id;
  assert.is(created.answer.body.leadId, leadId);
  const path = `/api/tasks/${taskId}`;
  const stream = taskStream.name(taskId);
  const patch = (body: object, as = key) => whenRequest(t, 'PATCH', path, { headers: bearer(as), body });

  const edited = await patch({
    title: 'Call back',
    dueAt: '2030-01-02T10:00:00+02:00',
    assigneeUserId: assignee,
  });
  assert.is(thenAnswered(edited, 200).dueAt, '2030-01-02T08:00:00.000Z', 'stored in UTC');
  thenAppended(edited, keyId, [
    {
      stream,
      type: 'TaskEdited',
      data: {
        taskId,
        fields: { title: 'Call back', dueAt: '2030-01-02T08:00:00.000Z', assigneeUserId: assignee },
        at,
      },
    },
  ]);
  const bad = await patch({ status: 'pending' });
  assert.equal(paths(thenAnswered(bad, 400)), ['status']);
  thenAppended(bad, keyId, []);
  const other = t.issueKey();
  const foreign = await patch({ title: 'x' }, other.apiKey);
  thenAnswered(foreign, 403);
  thenAppended(foreign, other.keyId, []);

  const done = await patch({ status: 'completed' });
  assert.is(thenAnswered(done, 200).status, 'completed');
  thenAppended(done, keyId, [
    { stream, type: 'TaskStatusChanged', data: { taskId, from: 'pending', to: 'completed', at } },
  ]);
  const again = await patch({ status: 'skipped' });
  assert.is(thenAnswered(again, 409).code, 'invalid_transition');
  thenAppended(again, keyId, []);

  const foreignDelete = await whenRequest(t, 'DELETE', path, { headers: bearer(other.apiKey) });
  thenAnswered(foreignDelete, 403);
  thenAppended(foreignDelete, other.keyId, []);
  const deleted = await whenRequest(t, 'DELETE', path, { headers: bearer(key) });
  thenAnswered(deleted, 204);
  thenAppended(deleted, keyId, [{ stream, type: 'TaskDeleted', data: { taskId, at } }]);
  const gone = await whenRequest(t, 'DELETE', path, { headers: bearer(key) });
  thenAnswered(gone, 404);
  thenAppended(gone, keyId, []);
});

test.run();
