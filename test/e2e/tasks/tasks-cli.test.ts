import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { type CliContext, cliSuite } from '../../support/cli-suite.ts';
import { eventually } from '../../support/eventually.ts';
import { startSmtp } from '../../support/smtp.ts';

type Ctx = CliContext;

const smtp = await startSmtp();
const { test, stk, json } = cliSuite<Ctx>('e2e: stk tasks against the running service', {
  env: () => ({ SMTP_URL: smtp.url }),
});
test.after(async () => {
  await smtp.close();
});

const api = async (ctx: Ctx, path: string, body: object) => {
  const res = await call(ctx.service.url, 'POST', path, { headers: bearer(ctx.key), body });
  assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
};

test('create | draft-email | schedule-email: the email goes out through SMTP and completes the task', async (ctx) => {
  const member = await api(ctx, '/api/users', { email: 'cli-mailer@example.com' });
  await api(ctx, '/api/sender-accounts', {
    type: 'email',
    address: 'cli@ours.example',
    userId: member,
    dailyLimit: 10,
  });
  const leadId = await api(ctx, '/api/leads', {
    firstName: 'Ada',
    fullName: 'Ada L',
    emailAddresses: ['ada@cli.example'],
  });
  const task = await json(ctx, [
    'tasks',
    'create',
    'Write to {{firstName}}',
    '--type',
    'email',
    '--notes',
    'Hello {{fullName}}',
    '--assignee',
    member,
    '--lead',
    leadId,
  ]);
  assert.is(task.status, 'pending');
  const drafted = await json(ctx, ['tasks', 'draft-email', task.id]);
  assert.is(drafted.email.subject, 'Write to Ada');
  assert.is(drafted.email.body, 'Hello Ada L');
  const scheduled = await json(ctx, ['tasks', 'schedule-email', task.id, '--at', new Date().toISOString()]);
  assert.is(scheduled.status, 'scheduled');
  const sent = await eventually('the email sent', async () => {
    const now = await json(ctx, ['tasks', 'get', task.id]);
    return now.email.status === 'sent' ? now : undefined;
  });
  assert.is(sent.status, 'completed');
  assert.is(smtp.received.length, 1);
  assert.equal(smtp.received[0]!.to, ['ada@cli.example']);
  const shown = await stk(ctx, ['tasks', 'get', task.id]);
  assert.match(shown.stdout, /Email:\s+sent: cli@ours.example -> ada@cli.example/);
});

test('list with shorthand filters | complete | skip | bulk: per-task results; errors are problems, not stacks', async (ctx) => {
  const a = await json(ctx, ['tasks', 'create', 'Call A', '--type', 'call', '--due', '2031-01-01T10:00:00Z']);
  const b = await json(ctx, ['tasks', 'create', 'Call B', '--type', 'call', '--due', '2031-01-02T10:00:00Z']);
  const calls = await json(ctx, ['tasks', 'list', '--type', 'call', '--status', 'pending']);
  assert.equal(
    calls.data.map((t: { id: string }) => t.id),
    [a.id, b.id],
  );
  const listed = await stk(ctx, ['tasks', 'list', '--type', 'call']);
  assert.match(listed.stdout, new RegExp(`${a.id}\\s+call\\s+pending`));
  assert.is((await json(ctx, ['tasks', 'complete', a.id])).status, 'completed');
  const again = await stk(ctx, ['tasks', 'skip', a.id]);
  assert.is(again.code, 1);
  assert.match(again.stderr, /\(409 invalid_transition\)/);
  const bulk = await json(ctx, ['tasks', 'bulk', 'skip', a.id, b.id]);
  assert.equal(
    bulk.data.map((r: { result: string; code?: string }) => r.code ?? r.result),
    ['invalid_transition', 'ok'],
  );
  const bad = await stk(ctx, [
    'tasks',
    'list',
    '--filter',
    '{"mode":"AND","filters":[{"columnKey":"colour","operator":"isEmpty"}]}',
  ]);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /filter\.filters\[0\]\.columnKey/);
});

test.run();
