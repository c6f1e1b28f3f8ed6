import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { connectHttp } from '../../support/mcp.ts';
import { insertRows } from '../../support/rows.ts';
import { httpColumnTable, startRunsApp, startTarget } from '../../support/runs.ts';

/**
 * Issue 35: a shutdown is not held by MCP. A watchRun in progress, streamed (progress asked for) or
 * not, answers at once with the run as it is, and the service closes as promptly as without MCP.
 */
test('a watchRun in progress answers with the run as it is when the service shuts down', async () => {
  const t = await startRunsApp();
  const target = await startTarget({ delayMs: 60_000 });
  try {
    const { apiKey } = await bootstrapAccount(t.url);
    const { tableId, columns } = await httpColumnTable(t.url, apiKey, target.url);
    await insertRows(t.url, apiKey, tableId, [{ n: '1' }]);
    const started = await call(t.url, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
      headers: bearer(apiKey),
      body: { scope: 'all' },
    });
    assert.is(started.status, 202);
    await eventually('the row is in flight', async () => target.inFlight() === 1 || undefined, 30_000);
    // The run shows `running` once its row's start is in the log and the runs read model (the driver
    // writes what it started every 100 ms or so): before that a watch answers the run `queued`.
    await eventually(
      'the run to show running',
      async () =>
        (await call(t.url, 'GET', `/api/runs/${started.body.id}`, { headers: bearer(apiKey) })).body
          .status === 'running' || undefined,
      30_000,
    );
    const [streamed, plain] = [await connectHttp(t.url, apiKey), await connectHttp(t.url, apiKey)];
    // Both watches are in the server's hands before it closes (a fixed 500 ms sleep let a loaded
    // machine close before the calls arrived): the server has both POSTs, the streamed one reported.
    let calls = 0;
    t.app.server.on('request', (req) => {
      if (req.method === 'POST' && req.url?.startsWith('/mcp')) calls++;
    });
    const progress: number[] = [];
    const watches = [
      streamed.callTool({ name: 'watchRun', arguments: { runId: started.body.id } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      }),
      plain.callTool({ name: 'watchRun', arguments: { runId: started.body.id } }),
    ];
    await eventually(
      'both watches received, the streamed one reported',
      () => calls >= 2 && progress.length > 0,
    );
    const began = Date.now();
    await t.app.close();
    const answers = (await Promise.all(watches)) as CallToolResult[];
    // Held by the watches, the close would last as long as the row (60 s at the target): half of it
    // tells the two apart on a loaded machine.
    assert.ok(Date.now() - began < 30_000, `closed in ${Date.now() - began} ms`);
    for (const answer of answers) {
      assert.not.ok(answer.isError);
      assert.is((answer.structuredContent as { status: string }).status, 'running');
      assert.match(JSON.stringify(answer.content), 'shutting down');
    }
    assert.equal(progress, [0], 'the streamed watch reported the run before it answered');
    await Promise.all([streamed.close(), plain.close()]);
  } finally {
    await target.close();
    await t.close();
  }
});

test.run();
