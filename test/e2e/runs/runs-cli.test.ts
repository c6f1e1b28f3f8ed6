import { readFile } from 'node:fs/promises';
import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { runStk } from '../../support/cli.ts';
import { cliSuite } from '../../support/cli-suite.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertRows } from '../../support/rows.ts';
import { type CountingTarget, startTarget } from '../../support/runs.ts';
import { createTable } from '../../support/tables.ts';

let target: CountingTarget;
const { test, stk, json } = cliSuite('e2e: stk columns run | stop and stk runs against the running service', {
  env: () => ({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OUTBOUND_RATE_PER_HOST: '100000' }),
});
test.before(async () => {
  target = await startTarget({ fail: new Set(['2']) });
});
test.after(async () => {
  await target.close();
});

test('run a column, watch it end, list its runs and its failed rows', async (ctx) => {
  const url = ctx.service.url;
  const tableId = await createTable(url, ctx.key);
  const columns = await createColumns(url, ctx.key, tableId, {
    n: 'text',
    result: {
      dataType: 'json',
      kind: 'enrichment',
      config: { provider: 'http_request', method: 'GET', url: `${target.url}/r?n={{n}}` },
    },
  });
  await insertRows(url, ctx.key, tableId, [{ n: '1' }, { n: '2' }, { n: '3' }]);
  const started = await json(ctx, ['columns', 'run', tableId, columns.result.id]);
  assert.match(started.id, /^run_/);

  // Without a terminal: one JSON line per change, the last one the ended run; a run with failed rows
  // is not a success: exit 4 (partially succeeded), saying so on stderr.
  const watched = await stk(ctx, ['runs', 'watch', started.id, '--interval', '50']);
  assert.is(watched.code, 4, watched.stderr);
  assert.match(
    watched.stderr,
    `run ${started.id} ended partially_succeeded: 2 of 3 rows succeeded, 1 failed`,
  );
  const lines = watched.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const last = lines.at(-1);
  assert.is(last.id, started.id);
  assert.is(last.status, 'partially_succeeded');
  assert.equal([last.counts.succeeded, last.counts.failed], [2, 1]);

  const list = await json(ctx, ['runs', 'list', tableId]);
  assert.equal(
    list.data.map((r: { id: string }) => r.id),
    [started.id],
  );
  const human = await stk(ctx, ['runs', 'get', started.id]);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, 'partially_succeeded');
  const failed = await json(ctx, ['runs', 'rows', started.id, '--status', 'failed']);
  assert.is(failed.data.length, 1);
  assert.is(failed.data[0].error.code, 'http_error');

  // Stopping a finished run changes nothing and succeeds.
  const stopped = await json(ctx, ['runs', 'stop', started.id]);
  assert.is(stopped.status, 'partially_succeeded');
  const usage = await stk(ctx, [
    'columns',
    'run',
    tableId,
    columns.result.id,
    '--filter',
    '{}',
    '--row-ids',
    'x',
  ]);
  assert.is.not(usage.code, 0);
  assert.match(usage.stderr, '--filter or --row-ids');
});

test('stk columns run --watch exits 3 when every row failed, 0 when every row succeeded; no question without a terminal', async (ctx) => {
  const url = ctx.service.url;
  const tableId = await createTable(url, ctx.key);
  const columns = await createColumns(url, ctx.key, tableId, {
    n: 'text',
    result: {
      dataType: 'json',
      kind: 'enrichment',
      config: { provider: 'http_request', method: 'GET', url: `${target.url}/r?n={{n}}` },
    },
  });
  await insertRows(url, ctx.key, tableId, [{ n: '2' }]);
  // On a loaded machine the insert may answer before the rows read model has it: the run takes
  // the rows that read model shows.
  const estimatePath = `/api/tables/${tableId}/columns/${columns.result.id}/estimate`;
  await eventually('the row in the rows read model', async () => {
    const res = await call(url, 'POST', estimatePath, { headers: bearer(ctx.key), body: { scope: 'all' } });
    return res.body.eligible === 1;
  });
  const failed = await stk(ctx, [
    'columns',
    'run',
    tableId,
    columns.result.id,
    '--watch',
    '--interval',
    '50',
  ]);
  assert.is(failed.code, 3, `${failed.stderr}\n${failed.stdout}`);
  assert.match(failed.stderr, 'ended failed: 0 of 1 rows succeeded, 1 failed');
  assert.not.match(failed.stderr, 'Start the run?');
  assert.is(JSON.parse(failed.stdout.trim().split('\n').at(-1)!).status, 'failed');

  const [row] = await insertRows(url, ctx.key, tableId, [{ n: '1' }]);
  const ok = await stk(ctx, [
    'columns',
    'run',
    tableId,
    columns.result.id,
    '--watch',
    '--yes',
    '--row-ids',
    row.id,
  ]);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(JSON.parse(ok.stdout.trim().split('\n').at(-1)!).status, 'succeeded');
});

test('stk --version prints the version of package.json', async () => {
  const { version } = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8'));
  for (const flag of ['--version', '-V']) {
    const printed = await runStk([flag]);
    assert.is(printed.code, 0, printed.stderr);
    assert.is(printed.stdout, `${version}\n`);
  }
});

test.run();
