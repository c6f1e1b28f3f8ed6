import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consoleFeature } from '../../../app/features/console.ts';
import { operators } from '../../../src/auth/operators.ts';
import { projectionAudit } from '../../../src/projection/audit.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { consoleSession, postForm } from '../../support/console.ts';
import { eventually } from '../../support/eventually.ts';
import { noteStream, notesProjection, poisonSwitch, writeNotes } from '../../support/rebuild-fixtures.ts';
import { testRegistry } from '../../support/test-streams.ts';

/*
 * The console's projection repairs (issue 36) on a projection that stops at a poison event: the page
 * shows the event and its error, retry and skip run the code `stk admin projections` runs and are
 * audited with the operator; a rebuild started from the console swaps in while the live tables serve.
 */
const console_ = consoleFeature(() => testRegistry);
const test = suite<{ t: TestApp; session: { cookie: string; csrf: string } }>(
  'console: poison events and rebuilds',
);

test.before(async (ctx) => {
  poisonSwitch.armed = true;
  ctx.t = await startTestApp({
    projections: [notesProjection()],
    routes: [...console_.commands, ...console_.queries],
  });
  const { credential } = await operators.issue(ctx.t.db.pool, 'dana', 'test');
  ctx.session = await consoleSession(ctx.t.app, credential);
});
test.after(async (ctx) => {
  poisonSwitch.armed = true;
  await ctx.t.close();
});

const page = (t: TestApp, cookie: string, url: string) =>
  t.app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html' } });

test('a poison event: shown with its error; retry and skip are audited with the operator', async ({
  t,
  session,
}) => {
  await writeNotes(t.deps.store, 20);
  const poison = await t.deps.store.append(noteStream('bad'), [
    { type: 'OpsTestNoteWritten', data: { noteId: 'bad', author: 'x', text: 'boom', poison: true } },
  ]);
  const [event] = await t.deps.store.readStream(noteStream('bad'));
  assert.ok(poison && event);
  await eventually('the projection stops at the poison event', async () => {
    return (await checkpoints.get(t.db.pool, 'ops_notes'))?.state === 'failed';
  });
  const shown = await page(t, session.cookie, '/admin/projections/ops_notes');
  assert.match(shown.body, /Stopped at a poison event/);
  assert.match(shown.body, new RegExp(event!.id));
  assert.match(shown.body, /poison note bad/);

  // Retry while the cause remains: audited, and the projection stops there again.
  const retried = await postForm(t.app, session, '/admin/projections/ops_notes/retry');
  assert.is(retried.statusCode, 303);
  assert.is(retried.headers.location, '/admin/projections/ops_notes?done=retried');
  await eventually('it fails at the same event again', async () => {
    const row = await checkpoints.get(t.db.pool, 'ops_notes');
    return row?.state === 'failed' && row.failedEventId === event!.id;
  });
  // Skip it: the projection goes on, and both actions name the operator.
  const skipped = await postForm(t.app, session, '/admin/projections/ops_notes/skip', { eventId: event!.id });
  assert.is(skipped.statusCode, 303, skipped.body);
  await eventually(
    'running again',
    async () => (await checkpoints.get(t.db.pool, 'ops_notes'))?.state !== 'failed',
  );
  const audit = await projectionAudit.recent(t.db.pool, 'ops_notes', 5);
  assert.equal(
    audit.slice(0, 2).map((a) => [a.action, a.actor, a.eventId]),
    [
      ['skip', 'dana@console', event!.id],
      ['retry', 'dana@console', event!.id],
    ],
  );
  // Skipping an event it is not stopped at is refused, with why.
  const again = await t.app.inject({
    method: 'POST',
    url: '/admin/projections/ops_notes/skip',
    headers: {
      cookie: session.cookie,
      accept: 'text/html',
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({ _csrf: session.csrf, eventId: event!.id }).toString(),
  });
  assert.is(again.statusCode, 409);
  assert.match(again.body, /is not failed/);
});

test('a rebuild from the console: progress, then the swap, audited; reads of the live tables go on', async ({
  t,
  session,
}) => {
  poisonSwitch.armed = false;
  await writeNotes(t.deps.store, 3000, { seed: 'r' });
  const started = await postForm(t.app, session, '/admin/projections/ops_notes/rebuild');
  assert.is(started.statusCode, 303);
  // A second one while it runs is refused.
  const twice = await postForm(t.app, session, '/admin/projections/ops_notes/rebuild');
  assert.ok([303, 409].includes(twice.statusCode));
  let reads = 0;
  await eventually(
    'swapped in',
    async () => {
      const res = await t.db.pool.query('SELECT count(*) FROM ops_notes');
      assert.ok(Number(res.rows[0].count) > 0);
      reads++;
      return t.deps.parts.consoleRebuilds.get('ops_notes')?.phase === 'swapped';
    },
    30_000,
  );
  assert.ok(reads > 0);
  const shown = await page(t, session.cookie, '/admin/projections/ops_notes');
  assert.match(shown.body, /swapped in at/);
  const audit = await projectionAudit.recent(t.db.pool, 'ops_notes', 5);
  assert.ok(audit.some((a) => a.action === 'rebuild' && a.actor === 'dana@console'));
});

test('history of a test stream: state at a revision and the diff, through the registry the feature was given', async ({
  t,
  session,
}) => {
  const res = await page(t, session.cookie, `/admin/history?stream=${noteStream('r1')}&revision=0`);
  assert.is(res.statusCode, 200, res.body);
  assert.match(res.body, /Revision <strong>0<\/strong>/);
  const unknown = await page(t, session.cookie, '/admin/history?stream=nocategory-x');
  assert.is(unknown.statusCode, 404);
  assert.match(unknown.body, /no stream definition/);
});

test.run();
