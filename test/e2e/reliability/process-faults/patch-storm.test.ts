import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../../support/accounts.ts';
import { eventually } from '../../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../../support/postgres.ts';
import { Acknowledged, Services } from '../../../support/process-faults.ts';
import { createColumns } from '../../../support/rows.ts';
import { columnsPath, createTable } from '../../../support/tables.ts';

/**
 * A storm of column PATCHes (8 clients, one label each, every label new) with the service SIGKILLed in
 * the middle: after a restart every column holds its last acknowledged label or one tried after it,
 * every acknowledged label is in the log exactly once, no label is in it twice, and the read model
 * shows what the log says.
 */
interface Ctx {
  db: TestDatabase;
  services: Services;
}

const test = suite<Ctx>('process faults: a PATCH storm on columns, SIGKILLed midway');

const CLIENTS = 8;
const COLUMNS = 4;

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.services = new Services({ DATABASE_URL: ctx.db.url });
});
test.after(async (ctx) => {
  await ctx.services.close();
  await ctx.db.drop();
});

test('every acknowledged PATCH survives the kill, none is applied twice', async (ctx) => {
  const { services } = ctx;
  const first = await services.start();
  const { apiKey } = await bootstrapAccount(first.url);
  const tableId = await createTable(first.url, apiKey);
  const made = await createColumns(
    first.url,
    apiKey,
    tableId,
    Object.fromEntries(Array.from({ length: COLUMNS }, (_, i) => [`c${i}`, 'text'])),
  );
  const ids = Object.values(made).map((c) => c.id as string);
  const labels = new Acknowledged();
  for (const [key, column] of Object.entries(made)) labels.acked(column.id, key);

  let running = true;
  const everyAcked: string[] = [];
  let lost = 0;
  let n = 0;
  const client = async (w: number) => {
    while (running) {
      const id = ids[(w + n) % COLUMNS]!;
      const label = `label ${w}-${n++}`;
      labels.tried(id, label);
      const answer = await call(services.current.url, 'PATCH', `${columnsPath(tableId)}/${id}`, {
        headers: bearer(apiKey),
        body: { label },
      }).catch(() => undefined);
      if (answer?.status === 200) {
        labels.acked(id, label);
        everyAcked.push(label);
      } else if (answer)
        // A 503 from a process going down; a 409 from a PATCH that lost the race to its column on
        // every retry (it changed nothing). Anything else is a failure.
        assert.ok([503, 409].includes(answer.status), `${answer.status} ${JSON.stringify(answer.body)}`);
      else lost++;
      // A connection refused while no process listens must not spin.
      if (!answer) await new Promise((r) => setTimeout(r, 50));
    }
  };
  const storm = Promise.all(Array.from({ length: CLIENTS }, (_, w) => client(w)));
  // A client's failure is reported where the storm is awaited; not as an unhandled rejection.
  storm.catch(() => {});
  await eventually('a storm under way', () => everyAcked.length >= 200, 60_000);
  await services.kill();
  const ackedAtKill = everyAcked.length;
  await services.start();
  await eventually('PATCHes acknowledged again', () => everyAcked.length >= ackedAtKill + 100, 60_000);
  running = false;
  await storm;
  assert.ok(lost > 0, 'the kill cut no request');

  const url = services.current.url;
  const { rows } = await ctx.db.pool.query<{ label: string; n: number }>(
    `SELECT data->'changes'->>'label' AS label, count(*)::int AS n FROM events
     WHERE type = 'ColumnPatched' GROUP BY 1`,
  );
  const inLog = new Map(rows.map((r) => [r.label, r.n]));
  assert.equal(
    rows.filter((r) => r.n > 1),
    [],
    'a label applied twice',
  );
  for (const id of ids) {
    const column = await call(url, 'GET', `${columnsPath(tableId)}/${id}`, { headers: bearer(apiKey) });
    assert.is(column.status, 200);
    const possible = labels.possible(id)!;
    assert.ok(
      possible.includes(column.body.label),
      `${id}: ${column.body.label}, possible ${possible[0]}...`,
    );
  }
  for (const label of everyAcked) assert.is(inLog.get(label), 1, `acknowledged ${label}`);
  console.log(
    `  ${everyAcked.length} PATCHes acknowledged, ${lost} cut by the kill or refused while down, ${inLog.size} labels in the log`,
  );
});

test.run();
