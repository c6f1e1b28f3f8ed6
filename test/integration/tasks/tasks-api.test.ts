import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { addMember, createLead } from '../../support/sequences.ts';
import { tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('tasks API: create, get, edit, complete, skip, delete, query, bulk');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

const createTask = async (app: Parameters<typeof call>[0], key: string, body: object) => {
  const res = await call(app, 'POST', '/api/tasks', {
    headers: bearer(key),
    body: { title: 'Call', ...body },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; [k: string]: unknown };
};

test('POST: 201 with Location, defaults (manual, pending, the key user, due now); GET gives the same; bad input is a 400 naming the field and stores nothing', async ({
  t,
  key,
  otherKey,
}) => {
  const res = await call(t.app, 'POST', '/api/tasks', {
    headers: bearer(key),
    body: { title: 'Prepare the call', notes: 'ask about budget' },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.headers.location, `/api/tasks/${res.body.id}`);
  assert.is(res.body.type, 'manual');
  assert.is(res.body.status, 'pending');
  assert.is(res.body.completedAt, null);
  assert.is(res.body.sequenceId, null);
  assert.ok(res.body.assigneeUserId);
  const got = await call(t.app, 'GET', res.headers.location!, { headers: bearer(key) });
  assert.equal(got.body, res.body);
  assert.is((await call(t.app, 'GET', res.headers.location!, { headers: bearer(otherKey) })).status, 403);
  assert.is((await call(t.app, 'GET', '/api/tasks/task_nope', { headers: bearer(key) })).status, 404);

  const before = await call(t.app, 'POST', '/api/tasks/query', { headers: bearer(key), body: {} });
  for (const [body, path] of [
    [{}, 'title'],
    [{ title: 'x', type: 'fax' }, 'type'],
    [{ title: 'x', dueAt: 'tomorrow' }, 'dueAt'],
    [{ title: 'x', assigneeUserId: 'usr_nobody' }, 'assigneeUserId'],
    [{ title: 'x', leadId: 'lead_nope' }, 'leadId'],
  ] as const) {
    const bad = await call(t.app, 'POST', '/api/tasks', { headers: bearer(key), body });
    assert.is(bad.status, 400, JSON.stringify(body));
    assert.equal(paths(bad.body), [path], JSON.stringify(bad.body));
  }
  const after = await call(t.app, 'POST', '/api/tasks/query', { headers: bearer(key), body: {} });
  assert.equal(after.body.data, before.body.data, 'refused creations store nothing');
});

test('PATCH edits fields and completes or skips once; a done task refuses another end with 409; DELETE answers 204 then 404', async ({
  t,
  key,
  otherKey,
}) => {
  const member = await addMember(t.app, key, `tasks-member-${Date.now()}@example.com`);
  const leadId = await createLead(t.app, key, {
    fullName: 'Task Lead',
    emailAddresses: ['task.lead@example.com'],
  });
  const task = await createTask(t.app, key, { type: 'call', leadId });
  assert.is(task.leadId, leadId);
  const path = `/api/tasks/${task.id}`;
  const edited = await call(t.app, 'PATCH', path, {
    headers: bearer(key),
    body: { title: 'Call back', dueAt: '2030-01-02T10:00:00+02:00', assigneeUserId: member },
  });
  assert.is(edited.status, 200, JSON.stringify(edited.body));
  assert.is(edited.body.title, 'Call back');
  assert.is(edited.body.dueAt, '2030-01-02T08:00:00.000Z', 'stored in UTC');
  assert.is(edited.body.assigneeUserId, member);
  const bad = await call(t.app, 'PATCH', path, { headers: bearer(key), body: { status: 'pending' } });
  assert.is(bad.status, 400);
  assert.equal(paths(bad.body), ['status']);
  assert.is(
    (await call(t.app, 'PATCH', path, { headers: bearer(otherKey), body: { title: 'x' } })).status,
    403,
  );

  const done = await call(t.app, 'PATCH', path, { headers: bearer(key), body: { status: 'completed' } });
  assert.is(done.body.status, 'completed');
  assert.ok(done.body.completedAt);
  const again = await call(t.app, 'PATCH', path, { headers: bearer(key), body: { status: 'skipped' } });
  assert.is(again.status, 409);
  assert.is(again.body.code, 'invalid_transition');
  assert.is((await call(t.app, 'GET', path, { headers: bearer(key) })).body.status, 'completed');

  const skipped = await createTask(t.app, key, {});
  const skip = await call(t.app, 'PATCH', `/api/tasks/${skipped.id}`, {
    headers: bearer(key),
    body: { status: 'skipped' },
  });
  assert.is(skip.body.status, 'skipped');

  assert.is((await call(t.app, 'DELETE', path, { headers: bearer(otherKey) })).status, 403);
  assert.is((await call(t.app, 'DELETE', path, { headers: bearer(key) })).status, 204);
  assert.is((await call(t.app, 'GET', path, { headers: bearer(key) })).status, 404);
  assert.is((await call(t.app, 'DELETE', path, { headers: bearer(key) })).status, 404);
});

test('POST /api/tasks/query: the rows filter and condition over task fields, sorted, paged; an unknown field is a 400', async ({
  t,
  otherKey,
}) => {
  // A fresh organization's own tasks only: the other key's tasks never show.
  const key = otherKey;
  const made = [];
  for (const [i, type] of (['call', 'email', 'call', 'linkedin', 'call'] as const).entries()) {
    made.push(
      await createTask(t.app, key, { type, title: `T${i}`, dueAt: `2031-0${i + 1}-15T09:00:00.000Z` }),
    );
  }
  await call(t.app, 'PATCH', `/api/tasks/${made[2]!.id}`, {
    headers: bearer(key),
    body: { status: 'completed' },
  });
  const query = (body: object) => call(t.app, 'POST', '/api/tasks/query', { headers: bearer(key), body });

  const calls = await query({
    filter: {
      mode: 'AND',
      filters: [
        { columnKey: 'type', operator: 'equals', value: 'call' },
        { columnKey: 'status', operator: 'equals', value: 'pending' },
        { columnKey: 'dueAt', operator: 'after', value: '2031-01-01' },
      ],
    },
    sort: '-dueAt',
  });
  assert.is(calls.status, 200, JSON.stringify(calls.body));
  assert.equal(
    calls.body.data.map((x: { title: string }) => x.title),
    ['T4', 'T0'],
  );
  // The index conditions beside the filter select exactly what it does: any case, any date form, OR.
  const anyCase = await query({
    filter: {
      mode: 'and',
      filters: [
        { columnKey: 'type', operator: 'equals', value: 'CALL' },
        { columnKey: 'status', operator: 'equals', value: 'Pending' },
        { columnKey: 'dueAt', operator: 'before', value: '2031-05-15T10:00:00+01:00' },
      ],
    },
    sort: '-dueAt',
  });
  assert.equal(
    anyCase.body.data.map((x: { title: string }) => x.title),
    ['T0'],
    'before 09:00 UTC on 2031-05-15: T4 (due then) is not before it',
  );
  const orFilter = await query({
    filter: {
      mode: 'OR',
      filters: [
        { columnKey: 'type', operator: 'equals', value: 'linkedin' },
        { columnKey: 'status', operator: 'equals', value: 'completed' },
      ],
    },
    sort: 'dueAt',
  });
  assert.equal(
    orFilter.body.data.map((x: { title: string }) => x.title),
    ['T2', 'T3'],
  );
  const either = await query({
    condition: {
      type: 'any',
      children: [
        { type: 'condition', columnKey: 'type', operator: 'equals', value: 'email', missingPolicy: 'false' },
        {
          type: 'condition',
          columnKey: 'status',
          operator: 'equals',
          value: 'completed',
          missingPolicy: 'false',
        },
      ],
    },
    sort: 'dueAt',
  });
  assert.is(either.status, 200, JSON.stringify(either.body));
  assert.equal(
    either.body.data.map((x: { title: string }) => x.title),
    ['T1', 'T2'],
  );
  // Pages of two, by due time: every task once, in order.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: { title: string }[]; nextCursor: string | null } } = await query({
      sort: 'dueAt',
      limit: 2,
      ...(cursor ? { cursor } : {}),
    });
    seen.push(...page.body.data.map((x) => x.title));
    cursor = page.body.nextCursor;
  } while (cursor);
  assert.equal(seen, ['T0', 'T1', 'T2', 'T3', 'T4']);

  const unknown = await query({
    filter: { mode: 'AND', filters: [{ columnKey: 'colour', operator: 'isEmpty' }] },
  });
  assert.is(unknown.status, 400);
  assert.equal(paths(unknown.body), ['filter.filters[0].columnKey']);
  const badSort = await query({ sort: 'colour' });
  assert.is(badSort.status, 400);
  assert.equal(paths(badSort.body), ['sort']);
});

test('POST /api/tasks/bulk: one result per task, never all-or-nothing; reassign and reschedule apply; delete removes', async ({
  t,
  key,
  otherKey,
}) => {
  const member = await addMember(t.app, key, `bulk-member-${Date.now()}@example.com`);
  const a = await createTask(t.app, key, {});
  const b = await createTask(t.app, key, {});
  const theirs = await createTask(t.app, otherKey, {});
  await call(t.app, 'PATCH', `/api/tasks/${b.id}`, { headers: bearer(key), body: { status: 'skipped' } });
  const bulk = (body: object) => call(t.app, 'POST', '/api/tasks/bulk', { headers: bearer(key), body });

  const completed = await bulk({ action: 'complete', taskIds: [a.id, b.id, theirs.id, 'task_nope'] });
  assert.is(completed.status, 200, JSON.stringify(completed.body));
  assert.equal(
    completed.body.data.map((r: { taskId: string; result: string; code?: string }) => [
      r.taskId,
      r.result,
      r.code,
    ]),
    [
      [a.id, 'ok', undefined],
      [b.id, 'error', 'invalid_transition'],
      [theirs.id, 'error', 'forbidden'],
      ['task_nope', 'error', 'not_found'],
    ],
  );
  assert.is(
    (await call(t.app, 'GET', `/api/tasks/${a.id}`, { headers: bearer(key) })).body.status,
    'completed',
  );
  assert.is(
    (await call(t.app, 'GET', `/api/tasks/${theirs.id}`, { headers: bearer(otherKey) })).body.status,
    'pending',
    "another organization's task is untouched",
  );

  const reassigned = await bulk({ action: 'reassign', taskIds: [a.id, b.id], assigneeUserId: member });
  assert.equal(
    reassigned.body.data.map((r: { result: string }) => r.result),
    ['ok', 'ok'],
  );
  assert.is(
    (await call(t.app, 'GET', `/api/tasks/${b.id}`, { headers: bearer(key) })).body.assigneeUserId,
    member,
  );
  const rescheduled = await bulk({ action: 'reschedule', taskIds: [a.id], dueAt: '2032-05-01T00:00:00Z' });
  assert.is(rescheduled.body.data[0].result, 'ok');
  assert.is(
    (await call(t.app, 'GET', `/api/tasks/${a.id}`, { headers: bearer(key) })).body.dueAt,
    '2032-05-01T00:00:00.000Z',
  );
  for (const [body, path] of [
    [{ action: 'reassign', taskIds: [a.id] }, 'assigneeUserId'],
    [{ action: 'reschedule', taskIds: [a.id] }, 'dueAt'],
    [{ action: 'complete', taskIds: [] }, 'taskIds'],
    [{ action: 'reassign', taskIds: [a.id], assigneeUserId: 'usr_nobody' }, 'assigneeUserId'],
  ] as const) {
    const bad = await bulk(body);
    assert.is(bad.status, 400, JSON.stringify(body));
    assert.equal(paths(bad.body), [path], JSON.stringify(bad.body));
  }
  const deleted = await bulk({ action: 'delete', taskIds: [a.id, a.id] });
  assert.equal(
    deleted.body.data.map((r: { result: string; code?: string }) => r.code ?? r.result),
    ['ok', 'not_found'],
  );
  assert.is((await call(t.app, 'GET', `/api/tasks/${a.id}`, { headers: bearer(key) })).status, 404);
});

test('schedule-email without SMTP_URL: 409 provider_unavailable, the task unchanged', async ({ t, key }) => {
  const task = await createTask(t.app, key, { type: 'email' });
  const res = await call(t.app, 'POST', `/api/tasks/${task.id}/schedule-email`, {
    headers: bearer(key),
    body: { sendAt: new Date(Date.now() + 60_000).toISOString() },
  });
  assert.is(res.status, 409);
  assert.is(res.body.status, 409);
  assert.is(res.body.code, 'provider_unavailable');
  assert.equal((await call(t.app, 'GET', `/api/tasks/${task.id}`, { headers: bearer(key) })).body, task);
});

test.run();
