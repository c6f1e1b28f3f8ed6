import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import '../../../src/domain/columns/events.ts';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { projectionAudit } from '../../../src/projection/audit.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { runAdmin, spawnAdmin } from '../../support/cli.ts';
import { columnCreated } from '../../support/column-events.ts';
import { eventually } from '../../support/eventually.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

const test = suite<StoreContext>('e2e: stk admin projections status, retry, skip');

const created = (columnId: string) =>
  columnCreated('tbl_cli', columnId, { key: columnId, label: columnId, position: 1 });

test.before(openStore);
test.after(closeStore);

test('status, then skip and retry of a projection stopped at an event, all audited', async ({
  db,
  store,
}) => {
  for (const id of ['c1', 'c2', 'c3']) await store.append(columnStream.name('tbl_cli', id), [created(id)]);
  const [first] = await store.readStream(columnStream.name('tbl_cli', 'c1'));
  const [second] = await store.readStream(columnStream.name('tbl_cli', 'c2'));
  // As a runner leaves it after a poison event: checkpoint just before the event, state failed.
  await db.pool.query(
    `INSERT INTO projection_checkpoints (name, version, commit_position, prepare_position, state, last_error, failed_event_id)
     VALUES ('columns', 1, $1, $2, 'failed', 'boom', $3)`,
    [String(first!.position.commit), String(first!.position.prepare), second!.id],
  );

  const status = await runAdmin(db.url, ['projections', 'status', '--json']);
  assert.is(status.code, 0, status.stderr);
  const columns = JSON.parse(status.stdout).find((r: { name: string }) => r.name === 'columns');
  assert.equal(
    {
      state: columns.state,
      failedEventId: columns.failedEventId,
      lastError: columns.lastError,
      lag: columns.lag.events,
    },
    { state: 'failed', failedEventId: second!.id, lastError: 'boom', lag: 2 },
  );
  const text = await runAdmin(db.url, ['projections', 'status']);
  assert.match(text.stdout, /columns\s+1\s+FAILED/);
  assert.match(text.stdout, new RegExp(`stk admin projections skip columns ${second!.id}`));

  const wrong = await runAdmin(db.url, ['projections', 'skip', 'columns', first!.id]);
  assert.is(wrong.code, 1);
  assert.match(wrong.stderr, /stopped at event/);

  const skipped = await runAdmin(db.url, ['projections', 'skip', 'columns', second!.id]);
  assert.is(skipped.code, 0, skipped.stderr);
  assert.match(skipped.stdout, /skipped ColumnCreated/);
  const row = await checkpoints.get(db.pool, 'columns');
  assert.equal(
    { state: row?.state, prepare: row?.position.prepare, failed: row?.failedEventId },
    { state: 'catching_up', prepare: second!.position.prepare, failed: null },
  );

  const notFailed = await runAdmin(db.url, ['projections', 'retry', 'columns']);
  assert.is(notFailed.code, 1);
  assert.match(notFailed.stderr, /not failed/);

  await db.pool.query(
    `UPDATE projection_checkpoints SET state = 'failed', last_error = 'again' WHERE name = 'columns'`,
  );
  const retried = await runAdmin(db.url, ['projections', 'retry', 'columns'], { STK_ADMIN_ACTOR: 'carol' });
  assert.is(retried.code, 0, retried.stderr);
  assert.is((await checkpoints.get(db.pool, 'columns'))?.state, 'catching_up');

  const audit = (await projectionAudit.recent(db.pool, 'columns')).map((e) => [e.action, e.actor, e.eventId]);
  assert.equal(audit, [
    ['retry', 'carol', null],
    ['skip', 'test-operator', second!.id],
  ]);
  const after = await runAdmin(db.url, ['projections', 'status']);
  assert.match(after.stdout, /retry by carol/);
  assert.match(after.stdout, /skip by test-operator/);
});

test('events tail follows the log live, filtered by type and stream prefix, until Ctrl-C', async ({
  db,
  store,
}) => {
  const child = spawnAdmin(db.url, [
    'events',
    'tail',
    '--json',
    '--type',
    'ColumnCreated',
    '--stream-prefix',
    'column-tbl_tail',
  ]);
  const lines: string[] = [];
  let buffer = '';
  child.stdout?.on('data', (d) => {
    buffer += d;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // It starts at the head of the log: probe until it shows one, then go on with the real events.
  const probe = columnStream.name('tbl_tail', 'probe');
  await eventually(
    'tail to start following',
    async () => {
      await store.append(probe, [
        { ...created('probe'), data: { ...created('probe').data, tableId: 'tbl_tail' } },
      ]);
      return lines.length > 0;
    },
    60_000,
  );
  await store.append(columnStream.name('tbl_other', 'x1'), [created('x1')]);
  await store.append(columnStream.name('tbl_tail', 'c9'), [
    { type: 'ColumnPatched', data: { tableId: 'tbl_tail', columnId: 'c9', changes: { label: 'not shown' } } },
  ]);
  await store.append(columnStream.name('tbl_tail', 'c9'), [
    { ...created('c9'), data: { ...created('c9').data, tableId: 'tbl_tail' } },
  ]);
  const shown = () => lines.map((l) => JSON.parse(l)).filter((e) => e.stream !== probe);
  await eventually('the matching event', async () => shown().length > 0);
  child.kill('SIGINT');
  assert.is(await exited, 0);
  assert.equal(
    shown().map((e) => [e.type, e.stream]),
    [['ColumnCreated', columnStream.name('tbl_tail', 'c9')]],
  );
});

test('usage errors exit 2', async ({ db }) => {
  const unknown = await runAdmin(db.url, ['projections', 'rebuild', 'no_such_projection']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown projection "no_such_projection"; known: .*columns/);
  const neither = await runAdmin(db.url, ['projections', 'rebuild']);
  assert.is(neither.code, 2);
});

test('stk admin events read prints control characters of stored names escaped, not raw', async ({
  db,
  store,
}) => {
  const stream = columnStream.name('tbl_cli', 'evil');
  await store.append(stream, [
    columnCreated('tbl_cli', 'evil', { key: 'evil', label: 'red\u001b[31m\u0007\u202eflip', position: 9 }),
  ]);
  const read = await runAdmin(db.url, ['events', 'read', stream]);
  assert.is(read.code, 0, read.stderr);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for raw control characters is the point
  assert.not.ok(/[\u001b\u0007\u202e]/.test(read.stdout), 'a raw control character reached the terminal');
  assert.match(read.stdout, '\\u001b[31m');
});

test.run();
