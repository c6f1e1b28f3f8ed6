import * as assert from 'uvu/assert';
import { cliSuite } from '../../support/cli-suite.ts';
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

  // Without a terminal: one JSON line per change, the last one the ended run.
  const watched = await stk(ctx, ['runs', 'watch', started.id, '--interval', '50']);
  assert.is(watched.code, 0, watched.stderr);
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

test.run();
