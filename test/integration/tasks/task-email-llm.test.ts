import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../support/fake-chat-completions.ts';
import { createPrompt } from '../../support/prompts.ts';
import { activeSequence, addMember, addSender, createLead, enroll } from '../../support/sequences.ts';
import { enrollmentTasks, tasksSuite } from '../../support/tasks.ts';

const API_KEY = 'sk-draft-test';
let llm: FakeChatCompletions;
const test = tasksSuite('task emails: drafted by the llm provider from a step prompt template', async () => {
  llm = await startFakeChatCompletions(API_KEY);
  return { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: API_KEY };
});
test.after(async () => {
  await llm?.close();
});

type Ctx = Parameters<Parameters<typeof test>[1]>[0];

const TEMPLATE = 'Write a short email to {{firstName}} at {{companyName}} about our engines.';

/** An email step task of a sequence whose step names a fresh prompt template, for a new lead. */
async function llmStepTask(ctx: Ctx, name: string, lead: Record<string, unknown>) {
  const { t, key } = ctx;
  const member = await addMember(t.app, key, `${name}@example.com`);
  await addSender(t.app, key, { type: 'email', address: `${name}@ours.example`, userId: member });
  const leadId = await createLead(t.app, key, lead);
  const prompt = await createPrompt(t.app, key, { name: `draft-${name}`, template: TEMPLATE });
  const sequenceId = await activeSequence(t.app, key, {
    steps: [{ type: 'email', waitDays: 0, subject: 'Hi {{firstName}}', promptTemplateId: prompt.id }],
  });
  const enrolled = await enroll(t.app, key, sequenceId, { leadIds: [leadId], assigneeUserId: member });
  const enrollmentId = enrolled.body.data[0].enrollmentId as string;
  const [task] = await eventually('the email step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 1 ? tasks : undefined;
  });
  return { taskId: task!.id, promptId: prompt.id as string };
}

const draft = (ctx: Ctx, taskId: string) =>
  call(ctx.t.app, 'POST', `/api/tasks/${taskId}/draft-email`, { headers: bearer(ctx.key) });
const getTask = async (ctx: Ctx, id: string) =>
  (await call(ctx.t.app, 'GET', `/api/tasks/${id}`, { headers: bearer(ctx.key) })).body;

test('a step naming a prompt template: the template is rendered with the lead fields and the draft is the model answer (its Subject line the subject)', async (ctx) => {
  const { taskId } = await llmStepTask(ctx, 'llm-a', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    companyName: 'Engines',
    emailAddresses: ['ada@engines.example'],
  });
  const asked = llm.bodies().length;
  llm.answers.push({ content: 'Subject: Engines for Ada\n\nDear Ada,\nour engines compute.\n' });
  const drafted = await draft(ctx, taskId);
  assert.is(drafted.status, 200, JSON.stringify(drafted.body));
  assert.is(drafted.body.email.subject, 'Engines for Ada');
  assert.is(drafted.body.email.body, 'Dear Ada,\nour engines compute.');
  assert.is(drafted.body.email.status, 'drafted');
  const sent = llm.bodies().slice(asked);
  assert.is(sent.length, 1);
  assert.equal(sent[0].messages, [
    { role: 'user', content: 'Write a short email to Ada at Engines about our engines.' },
  ]);
  assert.is(sent[0].model, 'gpt-4.1', 'the default lane (balanced)');

  // An answer without a subject line: the body is the answer, the subject the step's, rendered plainly.
  llm.answers.push({ content: 'Ada, a second try.' });
  const again = await draft(ctx, taskId);
  assert.is(again.status, 200, JSON.stringify(again.body));
  assert.is(again.body.email.subject, 'Hi Ada');
  assert.is(again.body.email.body, 'Ada, a second try.');
});

test('the LLM API failing is a 502 provider_failed problem naming what failed, and the draft is unchanged', async (ctx) => {
  const { taskId } = await llmStepTask(ctx, 'llm-b', {
    firstName: 'Grace',
    companyName: 'Navy',
    emailAddresses: ['grace@navy.example'],
  });
  llm.answers.push({ content: 'Subject: First\n\nThe first draft.' });
  assert.is((await draft(ctx, taskId)).status, 200);
  const before = await getTask(ctx, taskId);

  llm.answers.push({
    status: 400,
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    message: `too long for ${API_KEY}`,
  });
  const refused = await draft(ctx, taskId);
  assert.is(refused.status, 502, JSON.stringify(refused.body));
  assert.is(refused.body.code, 'provider_failed');
  assert.match(refused.body.detail, 'HTTP 400 (context_length_exceeded)');
  assert.not.match(JSON.stringify(refused.body), API_KEY, "the provider's own message is not repeated");

  llm.answers.push({ content: '   ' });
  const empty = await draft(ctx, taskId);
  assert.is(empty.status, 502, JSON.stringify(empty.body));
  assert.is(empty.body.code, 'provider_failed');
  assert.equal(await getTask(ctx, taskId), before, 'nothing stored by the failed drafts');
});

test('a lead lacking a required variable is a 422 naming it; a deleted template a 409; neither calls the model', async (ctx) => {
  const { taskId, promptId } = await llmStepTask(ctx, 'llm-c', {
    firstName: 'Alan',
    emailAddresses: ['alan@bletchley.example'],
  });
  const asked = llm.bodies().length;
  const missing = await draft(ctx, taskId);
  assert.is(missing.status, 422, JSON.stringify(missing.body));
  assert.is(missing.body.code, 'render_failed');
  assert.equal(missing.body.errors, [
    { path: 'variables.companyName', message: 'the lead has no value for it' },
  ]);

  const deleted = await call(ctx.t.app, 'DELETE', `/api/prompts/${promptId}`, { headers: bearer(ctx.key) });
  assert.is(deleted.status, 204, JSON.stringify(deleted.body));
  const gone = await draft(ctx, taskId);
  assert.is(gone.status, 409, JSON.stringify(gone.body));
  assert.match(gone.body.detail, promptId);
  assert.is(llm.bodies().length, asked);
  assert.is((await getTask(ctx, taskId)).email, null);
});

test('a step prompt template is checked on save: a malformed id, or one on a step that is not an email, is a 400 naming it', async (ctx) => {
  const post = (steps: object[]) =>
    call(ctx.t.app, 'POST', '/api/sequences', { headers: bearer(ctx.key), body: { name: 'Bad', steps } });
  for (const step of [
    { type: 'email', waitDays: 0, promptTemplateId: 'not-a-prompt' },
    { type: 'call', waitDays: 0, promptTemplateId: 'prm_0123456789abcdefghjk' },
  ]) {
    const res = await post([step]);
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['steps[0].promptTemplateId'],
    );
  }
});

test('a step prompt template must exist in the organization, on create and on edit: else a 400 naming the step', async (ctx) => {
  const { t, key } = ctx;
  const theirs = await createPrompt(t.app, (await bootstrapAccount(t.app)).apiKey, {
    name: 'theirs',
    template: TEMPLATE,
  });
  const mine = await createPrompt(t.app, key, { name: 'mine', template: TEMPLATE });
  const step = (promptTemplateId: string) => ({ type: 'email', waitDays: 0, promptTemplateId });
  const noSuch = 'prm_0123456789abcdefghjk';
  for (const id of [noSuch, theirs.id]) {
    const res = await call(t.app, 'POST', '/api/sequences', {
      headers: bearer(key),
      body: { name: 'Refs', steps: [step(mine.id), step(id)] },
    });
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['steps[1].promptTemplateId'],
    );
  }
  const created = await call(t.app, 'POST', '/api/sequences', {
    headers: bearer(key),
    body: { name: 'Refs', steps: [step(mine.id)] },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const edit = await call(t.app, 'PATCH', `/api/sequences/${created.body.id}`, {
    headers: bearer(key),
    body: { steps: [step(noSuch)] },
  });
  assert.is(edit.status, 400, JSON.stringify(edit.body));
  const kept = await call(t.app, 'GET', `/api/sequences/${created.body.id}`, { headers: bearer(key) });
  assert.equal(kept.body.steps, created.body.steps, 'the refused edit changed nothing');
});

test.run();
