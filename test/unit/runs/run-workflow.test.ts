import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { settlementEvents } from '../../../src/domain/accounts/credits.ts';
import type { OrganizationEvent } from '../../../src/domain/accounts/events.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import type { RunEvent } from '../../../src/domain/runs/events.ts';
import { columnRunStream, eventIdOf, releaseColumn, runStream } from '../../../src/domain/runs/run-state.ts';
import {
  decideFinish,
  decideStart,
  decideStop,
  type StartRunCommand,
  type StartState,
} from '../../../src/domain/runs/workflow.ts';
import type { TableEvent } from '../../../src/domain/tables/events.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { AppError } from '../../../src/errors.ts';
import { NOW } from '../../support/decider-spec.ts';
import { testRegistry } from '../../support/test-streams.ts';

/* The run workflow's decisions (src/domain/runs/workflow.ts): given the streams' events, when a command, then the events per stream. */
const test = suite('run workflow: start, stop and end decided from the streams they touch');

const org = 'org_1';
const at = NOW.toISOString();
const orgEvents = (balance: number): OrganizationEvent[] => [
  { type: 'OrganizationCreated', data: { organizationId: org, name: 'Acme', createdBy: 'usr_1' } },
  ...(balance > 0
    ? [{ type: 'CreditsGranted' as const, data: { organizationId: org, amount: balance, reason: 'signup' } }]
    : []),
];
const tableEvents: TableEvent[] = [
  { type: 'TableCreated', data: { tableId: 'tbl_1', organizationId: org, name: 'Leads', at } },
  {
    type: 'ColumnAdded',
    data: { tableId: 'tbl_1', columnId: 'col_1', key: 'company', kind: 'enrichment', dataType: 'text' },
  },
];

function givenStreams(events: {
  organization?: OrganizationEvent[];
  table?: TableEvent[];
  claim?: Parameters<typeof columnRunStream.evolve>[1][];
  run?: RunEvent[];
}): StartState {
  const fold = <S, E>(d: { initialState: () => S; evolve: (s: S, e: E) => S }, list: E[] = []) =>
    list.reduce(d.evolve, d.initialState());
  return {
    organization: fold(organizationStream, events.organization ?? orgEvents(100)),
    table: fold(tableStream, events.table ?? tableEvents),
    claim: fold(columnRunStream, events.claim),
    run: fold(runStream, events.run),
  };
}

const command = (over: Partial<StartRunCommand> = {}): StartRunCommand => ({
  runId: 'run_1',
  organizationId: org,
  tableId: 'tbl_1',
  column: { id: 'col_1', key: 'company', dataType: 'text', config: { provider: 'http_request' } },
  trigger: 'manual',
  rows: { total: 3, ids: ['row_1', 'row_2', 'row_3'] },
  scope: { scope: 'all' },
  creditsPerRow: 2,
  concurrency: 4,
  ...over,
});

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
};

/** Every decided event passes its registered schema, as the store would check it on append. */
const valid = (events: { type: string; data: unknown; id?: string }[]) => {
  for (const event of events) testRegistry.prepare(event);
  return events;
};

test('a start claims the column, reserves the rows the balance covers and creates the run', () => {
  const decision = decideStart(command(), givenStreams({ organization: orgEvents(5) }), NOW);
  valid([...decision.claim, ...decision.reservation, ...decision.created]);
  assert.equal(decision.claim, [
    {
      type: 'ColumnRunClaimed',
      data: { tableId: 'tbl_1', columnId: 'col_1', runId: 'run_1' },
    },
  ]);
  assert.equal(decision.reservation, [
    {
      type: 'CreditsReserved',
      data: { organizationId: org, runId: 'run_1', amount: 4 },
    },
  ]);
  assert.is(decision.created.length, 1);
  assert.equal(decision.run.rowIds, ['row_1', 'row_2'], 'two rows funded at 2 credits of 5');
  assert.equal(decision.run.unfundedRowIds, ['row_3']);
  assert.is(decision.run.reserved, 4);
  assert.is(decision.run.concurrency, 4);
});

test('a start over counted rows selects them as it goes', () => {
  const rows = { total: 50_000, upTo: 'row_99' };
  const decision = decideStart(command({ rows }), givenStreams({ organization: orgEvents(1000) }), NOW);
  assert.equal(decision.run.selection, {
    scope: { scope: 'all' },
    upTo: 'row_99',
    total: 50_000,
    funded: 500,
  });
  assert.equal(decision.run.rowIds, []);
});

test('a start is refused: a run in progress (409), no credit for one row (402), the column gone (404)', () => {
  const held = givenStreams({
    claim: [{ type: 'ColumnRunClaimed', data: { tableId: 'tbl_1', columnId: 'col_1', runId: 'run_0' } }],
  });
  assert.is(refusal(() => decideStart(command(), held, NOW)).code, 'run_in_progress');
  const poor = givenStreams({ organization: orgEvents(1) });
  assert.is(refusal(() => decideStart(command(), poor, NOW)).code, 'insufficient_credits');
  const removed = givenStreams({
    table: [
      ...tableEvents,
      { type: 'ColumnRemoved', data: { tableId: 'tbl_1', columnId: 'col_1', key: 'company' } },
    ],
  });
  assert.is(refusal(() => decideStart(command(), removed, NOW)).code, 'not_found');
});

test('a free column reserves nothing; a start asked again decides nothing new', () => {
  const free = decideStart(command({ creditsPerRow: 0 }), givenStreams({}), NOW);
  assert.equal(free.reservation, []);
  assert.equal(free.run.rowIds, ['row_1', 'row_2', 'row_3']);
  const started = givenStreams({ run: [{ type: 'RunCreated', data: free.run }] });
  const again = decideStart(command(), started, NOW);
  assert.equal([again.claim, again.reservation, again.created], [[], [], []]);
  assert.equal(again.run, free.run);
});

test('a start tried again after its claim and reservation landed (no atomic append) makes neither twice', () => {
  const first = decideStart(command(), givenStreams({}), NOW);
  const after = givenStreams({
    claim: first.claim,
    organization: [...orgEvents(100), ...(first.reservation as OrganizationEvent[])],
  });
  const again = decideStart(command(), after, NOW);
  assert.equal(again.claim, [], 'the claim is its own');
  assert.equal(again.reservation, [], 'the reservation is found, not made again');
  assert.is(again.run.reserved, 6);
  assert.equal(again.run.rowIds, first.run.rowIds);
});

test('a settled reservation is closed: the organization keeps only the open ones', () => {
  const reserved = decideStart(command(), givenStreams({}), NOW).reservation as OrganizationEvent[];
  const settled = [
    ...orgEvents(100),
    ...reserved,
    ...settlementEvents({ organizationId: org, runId: 'run_1', charged: 2, refunded: 4 }),
  ];
  const state = settled.reduce(organizationStream.evolve, organizationStream.initialState());
  assert.is(state.reservations.size, 0);
  assert.is(state.balance, 98);
});

test('a run id claimed again after a release (a start given up, tried again) is released again', () => {
  const claim = { tableId: 'tbl_1', columnId: 'col_1', runId: 'run_1' };
  const events: Parameters<typeof columnRunStream.evolve>[1][] = [
    { type: 'ColumnRunClaimed', data: claim },
    { type: 'ColumnRunReleased', data: claim },
    { type: 'ColumnRunClaimed', data: claim },
  ];
  const held = events.reduce(columnRunStream.evolve, columnRunStream.initialState());
  assert.equal(releaseColumn.decide(claim, held, NOW), [{ type: 'ColumnRunReleased', data: claim }]);
  const other = { ...claim, runId: 'run_2' };
  assert.equal(releaseColumn.decide(other, held, NOW), [], "another run's claim is left alone");
  const free = columnRunStream.evolve(held, { type: 'ColumnRunReleased', data: claim });
  assert.equal(releaseColumn.decide(claim, free, NOW), []);
});

test('a stop is asked once, of a run that started and has not ended', () => {
  const run = decideStart(command(), givenStreams({}), NOW).run;
  const created: RunEvent = { type: 'RunCreated', data: run };
  assert.equal(decideStop(runStream.initialState(), NOW), []);
  const started = [created].reduce(runStream.evolve, runStream.initialState());
  const stop = valid(decideStop(started, NOW));
  assert.equal(stop, [
    { id: eventIdOf('stop', 'run_1'), type: 'RunStopRequested', data: { runId: 'run_1', at } },
  ]);
  const stopping = (stop as RunEvent[]).reduce(runStream.evolve, started);
  assert.equal(decideStop(stopping, NOW), []);
});

test("an end charges the rows' cost, refunds the rest, records the end and releases the column", () => {
  const run = decideStart(command(), givenStreams({}), NOW).run;
  const tally = { total: 3, succeeded: 2, failed: 1, skipped: 0, charged: 6, stopped: false };
  const end = decideFinish(run, { tally }, NOW);
  valid([...end.settlement, ...end.finished]);
  assert.is(end.done.status, 'partially_succeeded');
  assert.equal(
    end.settlement.map((e) => [e.type, (e.data as { amount: number }).amount]),
    [['CreditsCharged', 6]],
  );
  const stopped = decideFinish(
    run,
    { tally: { ...tally, succeeded: 0, failed: 0, charged: 0, stopped: true } },
    NOW,
  );
  assert.is(stopped.done.status, 'stopped');
  assert.equal(
    stopped.settlement.map((e) => [e.type, (e.data as { amount: number }).amount]),
    [['CreditsRefunded', 6]],
  );
  const again = decideFinish(run, { done: end.done }, new Date(NOW.getTime() + 60_000));
  assert.equal(again, end, 'an end decided again from its record lands the same events');
});

test.run();
