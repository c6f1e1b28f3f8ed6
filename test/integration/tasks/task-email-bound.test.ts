import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { activeSequence, addMember, addSender, createLead, enroll } from '../../support/sequences.ts';
import { enrollmentTasks, tasksSuite } from '../../support/tasks.ts';

/*
 * Task email drafts render the step's text with the lead's fields (issue 34, item 1): a body of
 * `{{fullName}}` 8,000 times for a lead whose name is 500 characters would be 4,000,000 characters. A
 * draft longer than a render may produce (2,000,000) is a 422 naming the field, and drafts nothing.
 */
const test = tasksSuite('task emails: a draft is bounded as every render is');

test('a step body over the bound: 422 template_output_too_large naming body; the task keeps no draft', async ({
  t,
  key,
}) => {
  const member = await addMember(t.app, key, 'bound@example.com');
  await addSender(t.app, key, { type: 'email', address: 'bound@ours.example', userId: member });
  const leadId = await createLead(t.app, key, {
    fullName: 'n'.repeat(500),
    emailAddresses: ['long.name@example.org'],
  });
  const sequenceId = await activeSequence(t.app, key, {
    steps: [{ type: 'email', waitDays: 0, subject: 'Hi', body: '{{fullName}}'.repeat(8_000) }],
  });
  const enrolled = await enroll(t.app, key, sequenceId, { leadIds: [leadId], assigneeUserId: member });
  const enrollmentId = enrolled.body.data[0].enrollmentId as string;
  const [task] = await eventually('the email step task', async () => {
    const tasks = await enrollmentTasks(t.app, key, enrollmentId);
    return tasks.length === 1 ? tasks : undefined;
  });
  const drafted = await call(t.app, 'POST', `/api/tasks/${task!.id}/draft-email`, { headers: bearer(key) });
  assert.is(drafted.status, 422, JSON.stringify(drafted.body).slice(0, 300));
  assert.is(drafted.body.code, 'template_output_too_large');
  assert.equal(
    drafted.body.errors.map((e: { path: string }) => e.path),
    ['body'],
  );
  const after = await call(t.app, 'GET', `/api/tasks/${task!.id}`, { headers: bearer(key) });
  assert.is(after.body.email, null);
});

test.run();
