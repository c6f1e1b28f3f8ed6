import * as assert from 'uvu/assert';
import type { Executor } from '../../../processes/runs/executor.ts';
import { addToSequenceExecutor } from '../../../processes/runs/executors/add-to-sequence.ts';
import { loadState } from '../../../src/command.ts';
import { leadEnrollmentsStream } from '../../../src/domain/sequences/streams.ts';
import { bearer, call } from '../../support/accounts.ts';
import { runRowContext } from '../../support/executor-context.ts';
import { activeSequence, addMember, addSender, createLead, sequenceAction } from '../../support/sequences.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('add_to_sequence: the config check and the executor');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();
let n = 0;
const person = () => {
  n++;
  return { fullName: `Enrollee ${n}`, emailAddresses: [`enrollee${n}@example.com`] };
};

test('saving the config: the sequence must be ACTIVE and linked to the table through sourceTableId (400 naming sequenceId)', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key, 'Source');
  const other = await createTable(t.app, key, 'Other');
  await createColumn(t.app, key, tableId, { label: 'Leads', kind: 'enrichment', dataType: 'json' });
  const column = (sequenceId: string) =>
    call(t.app, 'POST', columnsPath(tableId), {
      headers: bearer(key),
      body: {
        label: `Enroll ${++n}`,
        kind: 'action',
        dataType: 'json',
        config: { provider: 'add_to_sequence', sequenceId, sourceLeadColumn: 'leads' },
      },
    });
  const draft = (
    await call(t.app, 'POST', '/api/sequences', {
      headers: bearer(key),
      body: { name: 'D', sourceTableId: tableId, steps: [{ type: 'call', waitDays: 0 }] },
    })
  ).body.id;
  const unlinked = await activeSequence(t.app, key, { sourceTableId: other });
  const linked = await activeSequence(t.app, key, { sourceTableId: tableId });
  for (const id of [draft, unlinked, 'seq_nope']) {
    const res = await column(id);
    assert.is(res.status, 400, id);
    assert.equal(paths(res.body), ['config.sequenceId'], id);
  }
  const ok = await column(linked);
  assert.is(ok.status, 201, JSON.stringify(ok.body));
  const roundRobinOfNobody = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${ok.body.id}`, {
    headers: bearer(key),
    body: { config: { routingMode: 'round_robin' } },
  });
  assert.equal(paths(roundRobinOfNobody.body), ['config.assignmentPlan']);
  const toDraft = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${ok.body.id}`, {
    headers: bearer(key),
    body: { config: { sequenceId: draft } },
  });
  assert.equal(paths(toDraft.body), ['config.sequenceId']);
});

/** A linked ACTIVE sequence, an executor, and a way to run one row of lead ids through it. */
async function setup(
  ctx: { t: import('../../support/app.ts').TestApp; key: string; organizationId: string },
  config: object = {},
) {
  const tableId = await createTable(ctx.t.app, ctx.key, 'Run');
  const sequenceId = await activeSequence(ctx.t.app, ctx.key, { sourceTableId: tableId });
  const run: Executor = addToSequenceExecutor({ store: ctx.t.deps.store, pool: ctx.t.deps.pool });
  const row = (leads: unknown, extra: object = {}) =>
    run(
      runRowContext({
        organizationId: ctx.organizationId,
        tableId,
        column: {
          id: 'col_seq',
          config: { provider: 'add_to_sequence', sequenceId, sourceLeadColumn: 'leads', ...config, ...extra },
        },
        row: { cells: { leads } },
      }),
    );
  return { tableId, sequenceId, row };
}

// biome-ignore lint/suspicious/noExplicitAny: outcomes are JSON that tests pick apart
const valuesOf = (outcome: Awaited<ReturnType<Executor>>): any[] => {
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
  return outcome.value as unknown[];
};

test('single: enrolls the cell lead ids with the assignee and its default senders; a re-run skips them; bad ids fail', async (ctx) => {
  const { t, key } = ctx;
  const member = await addMember(t.app, key, `single${Date.now()}@example.com`);
  const sender = await addSender(t.app, key, {
    type: 'email',
    address: `s${Date.now()}@example.com`,
    userId: member,
  });
  const { row } = await setup(ctx, { assignedToUserId: member });
  const a = await createLead(t.app, key, person());
  const b = await createLead(t.app, key, person());
  const first = valuesOf(await row(JSON.stringify([a, b, 'led_nope'])));
  assert.equal(
    first.map((o) => [o.leadId, o.outcome, o.reason]),
    [
      [a, 'enrolled', undefined],
      [b, 'enrolled', undefined],
      ['led_nope', 'failed', 'lead_not_found'],
    ],
  );
  const { state } = await loadState(t.deps.store, leadEnrollmentsStream.name(a), leadEnrollmentsStream);
  const enrollment = [...state.values()][0]!;
  assert.is(enrollment.assigneeUserId, member);
  assert.equal(enrollment.senderAccountIds, { email: sender });
  const again = valuesOf(await row([a]));
  assert.equal(
    again.map((o) => o.reason),
    ['already_enrolled'],
  );
  const empty = await row(null);
  assert.not.ok(empty.ok);
  assert.is((empty as { error: { code: string } }).error.code, 'no_leads');
});

test('per row the sequence is checked again: paused or unlinked since the config was saved is a row error', async (ctx) => {
  const { t, key } = ctx;
  const { sequenceId, row } = await setup(ctx);
  const lead = await createLead(t.app, key, person());
  await sequenceAction(t.app, key, sequenceId, 'pause');
  const paused = await row([lead]);
  assert.is((paused as { error: { code: string } }).error.code, 'sequence_not_active');
  await sequenceAction(t.app, key, sequenceId, 'activate');
  await call(t.app, 'PATCH', `/api/sequences/${sequenceId}`, {
    headers: bearer(key),
    body: { sourceTableId: null },
  });
  const unlinked = await row([lead]);
  assert.is((unlinked as { error: { code: string } }).error.code, 'sequence_not_linked');
});

test('the conflict skip: a lead active in another sequence is skipped with already_active_in:<id>', async (ctx) => {
  const { t, key } = ctx;
  const { row } = await setup(ctx, { skipActiveSequenceConflicts: true });
  const elsewhere = await activeSequence(t.app, key);
  const lead = await createLead(t.app, key, person());
  await call(t.app, 'POST', `/api/sequences/${elsewhere}/enrollments`, {
    headers: bearer(key),
    body: { leadIds: [lead] },
  });
  const outcome = valuesOf(await row([lead]));
  assert.equal(outcome, [{ leadId: lead, outcome: 'skipped', reason: `already_active_in:${elsewhere}` }]);
});

async function fairness(ctx: Parameters<typeof setup>[0], weights: number[], mode: string) {
  const { t, key } = ctx;
  const members = await Promise.all(
    weights.map((_, i) => addMember(t.app, key, `w${i}.${mode}.${Date.now()}@example.com`)),
  );
  const plan = members.map((assigneeUserId, i) => ({ assigneeUserId, weight: weights[i] }));
  const { row } = await setup(ctx, { routingMode: mode, assignmentPlan: plan });
  const leads = await Promise.all(Array.from({ length: 50 }, () => createLead(t.app, key, person())));
  // 50 rows at once, one lead each: every route is decided on the routing stream after the others.
  const outcomes = (await Promise.all(leads.map((lead) => row([lead])))).flatMap(valuesOf);
  assert.ok(
    outcomes.every((o) => o.outcome === 'enrolled'),
    JSON.stringify(outcomes.filter((o) => o.outcome !== 'enrolled')),
  );
  const counts = members.map((m) => outcomes.filter((o) => o.assigneeUserId === m).length);
  const effective = mode === 'round_robin' ? weights.map(() => 1) : weights;
  const total = effective.reduce((a, b) => a + b, 0);
  counts.forEach((count, i) => {
    const share = (50 * effective[i]!) / total;
    assert.ok(
      Math.abs(count - share) <= 1,
      `${mode}: assignee ${i} got ${count}, share ${share} (${counts})`,
    );
  });
  // A lead's row run again keeps its assignee and moves no count.
  const rerun = valuesOf(await row([leads[0]]));
  assert.is(rerun[0].reason, 'already_enrolled');
}

test('routing fairness under 50 concurrent enrollments: round_robin over 3', (ctx) =>
  fairness(ctx, [1, 1, 1], 'round_robin'));
test('routing fairness under 50 concurrent enrollments: weighted_round_robin 3:2:1', (ctx) =>
  fairness(ctx, [3, 2, 1], 'weighted_round_robin'));

test.run();
