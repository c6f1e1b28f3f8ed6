import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { followLead } from '../../../services/leads/identity.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertRows, listAll } from '../../support/rows.ts';
import { runSettled, startRunsApp } from '../../support/runs.ts';
import { activeSequence, addMember } from '../../support/sequences.ts';
import { createTable } from '../../support/tables.ts';

/*
 * Issue 17, item 8: add_to_crm and add_to_sequence end to end through column runs: rows become leads,
 * their ids land in the cells, and a second column enrolls those leads in a sequence.
 */
const test = suite<{ t: TestApp; key: string }>('column runs of add_to_crm and add_to_sequence');
test.before(async (ctx) => {
  ctx.t = await startRunsApp();
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => ctx.t.close());

const runColumn = async (ctx: { t: TestApp; key: string }, tableId: string, columnId: string) => {
  const res = await call(ctx.t.app, 'POST', `/api/tables/${tableId}/columns/${columnId}/run`, {
    headers: bearer(ctx.key),
    body: { scope: 'all' },
  });
  assert.is(res.status, 202, JSON.stringify(res.body));
  return runSettled(ctx.t, ctx.key, res.body.id);
};

/** A name, an email, and an add_to_crm column making a lead of the two. */
const crmColumns = (ctx: { t: TestApp; key: string }, tableId: string) =>
  createColumns(ctx.t.app, ctx.key, tableId, {
    name: 'text',
    email: 'email',
    crm: {
      dataType: 'json',
      kind: 'action',
      config: {
        provider: 'add_to_crm',
        fieldMappings: { fullName: 'name', emailAddresses: [{ column: 'email' }] },
      },
    },
  });

test('rows to leads, lead ids to enrollments, through two runs', async (ctx) => {
  const { t, key } = ctx;
  const tableId = await createTable(t.app, key, 'Prospects');
  const member = await addMember(t.app, key, `owner${Date.now()}@example.com`);
  const sequenceId = await activeSequence(t.app, key, { sourceTableId: tableId });
  const columns = await crmColumns(ctx, tableId);
  await insertRows(t.app, key, tableId, [
    { name: 'Ada Lovelace', email: 'ada@example.com' },
    { name: 'Alan Turing', email: 'alan@example.com' },
    { name: 'Ada L.', email: 'ADA@example.com' },
  ]);
  const crmRun = await runColumn(ctx, tableId, columns.crm.id);
  assert.is(crmRun.status, 'succeeded', JSON.stringify(crmRun));
  const rows = await listAll(t.app, key, tableId);
  const ids = rows.map((r) => r.cells.crm as string[]);
  assert.ok(
    ids.every((v) => Array.isArray(v) && v.length === 1),
    JSON.stringify(ids),
  );
  // The same email is the same lead, named alike in both cells: three rows, two leads.
  assert.is(ids[0]![0], ids[2]![0]);
  assert.is.not(ids[0]![0], ids[1]![0]);
  for (const [id] of ids) assert.is((await followLead(t.deps.store, id!))!.id, id, 'a lead not folded away');

  const enroll = await call(t.app, 'POST', `/api/tables/${tableId}/columns`, {
    headers: bearer(key),
    body: {
      label: 'Enroll',
      key: 'enroll',
      kind: 'action',
      dataType: 'json',
      config: { provider: 'add_to_sequence', sequenceId, sourceLeadColumn: 'crm', assignedToUserId: member },
    },
  });
  assert.is(enroll.status, 201, JSON.stringify(enroll.body));
  const sequenceRun = await runColumn(ctx, tableId, enroll.body.id);
  assert.is(sequenceRun.status, 'succeeded', JSON.stringify(sequenceRun));
  const enrollments = await eventually('the enrollments to be listed', async () => {
    const res = await call(t.app, 'GET', `/api/sequences/${sequenceId}/enrollments`, {
      headers: bearer(key),
    });
    return res.status === 200 && res.body.data.length === 2 ? res.body.data : undefined;
  });
  assert.equal(enrollments.map((e: { leadId: string }) => e.leadId).sort(), [ids[0]![0], ids[1]![0]].sort());
  const outcomes = (await listAll(t.app, key, tableId)).map((r) => r.cells.enroll?.[0]?.outcome);
  // The third row names the first row's lead again: already enrolled by the time it ran, or enrolled by it.
  assert.equal(outcomes.filter((o) => o === 'enrolled').length, 2, JSON.stringify(outcomes));
  assert.ok(
    outcomes.every((o) => o === 'enrolled' || o === 'skipped'),
    JSON.stringify(outcomes),
  );
});

test('30 rows of 3 people through one run, five runs: each person one lead, named by all its rows', async (ctx) => {
  const { t, key } = ctx;
  for (let round = 0; round < 5; round++) {
    const tableId = await createTable(t.app, key, `People ${round}`);
    const columns = await crmColumns(ctx, tableId);
    const emails = Array.from({ length: 30 }, (_, i) => `person${i % 3}.${round}@example.com`);
    await insertRows(
      t.app,
      key,
      tableId,
      emails.map((email, i) => ({ name: `Row ${i}`, email })),
    );
    const run = await runColumn(ctx, tableId, columns.crm.id);
    assert.is(run.status, 'succeeded', JSON.stringify(run));
    const named = new Map<string, Set<string>>();
    for (const row of await listAll(t.app, key, tableId)) {
      const email = row.cells.email as string;
      for (const id of row.cells.crm as string[]) named.set(email, (named.get(email) ?? new Set()).add(id));
    }
    const answered = [...named.values()].map((ids) => [...ids]);
    assert.is(answered.length, 3);
    assert.ok(
      answered.every((ids) => ids.length === 1),
      `round ${round}: the rows of one person name ${JSON.stringify(answered)}`,
    );
    for (const [id] of answered) {
      const lead = (await followLead(t.deps.store, id!))!;
      assert.is(lead.id, id, 'a lead not folded away');
      assert.is(lead.data.sources.length, 10);
    }
  }
});

test.run();
