import * as assert from 'uvu/assert';
import { bearer, call } from './accounts.ts';

/**
 * Background work the fault suites (test/e2e/reliability/) set going before they break something: a
 * task email scheduled through the API, sent later by the service's worker.
 */

const api = (url: string, key: string, method: string, path: string, body?: object) =>
  call(url, method, path, { headers: bearer(key), ...(body ? { body } : {}) });

/** A member with an email sender account (10 a day): who scheduled emails go out as. Returns the member id. */
export async function mailer(url: string, key: string, address: string): Promise<string> {
  const member = await api(url, key, 'POST', '/api/users', { email: `member-${address}` });
  assert.is(member.status, 201, JSON.stringify(member.body));
  const sender = await api(url, key, 'POST', '/api/sender-accounts', {
    type: 'email',
    address,
    userId: member.body.id,
    dailyLimit: 10,
  });
  assert.is(sender.status, 201, JSON.stringify(sender.body));
  return member.body.id;
}

/** An email task to a new lead at `to`, drafted and scheduled for `sendAt`; returns the task id. */
export async function scheduledEmail(
  url: string,
  key: string,
  memberId: string,
  to: string,
  sendAt: Date,
): Promise<string> {
  const lead = await api(url, key, 'POST', '/api/leads', { fullName: 'Fault Lead', emailAddresses: [to] });
  const task = await api(url, key, 'POST', '/api/tasks', {
    type: 'email',
    title: 'Fault test',
    notes: 'Hello',
    assigneeUserId: memberId,
    leadId: lead.body.id,
  });
  assert.is((await api(url, key, 'POST', `/api/tasks/${task.body.id}/draft-email`)).status, 200);
  const scheduled = await api(url, key, 'POST', `/api/tasks/${task.body.id}/schedule-email`, {
    sendAt: sendAt.toISOString(),
  });
  assert.is(scheduled.status, 200, JSON.stringify(scheduled.body));
  return task.body.id;
}

/** The task's email as GET /api/tasks/{id} shows it (status, messageId, error). */
// biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON that tests pick apart
export async function emailOf(url: string, key: string, taskId: string): Promise<any> {
  return (await api(url, key, 'GET', `/api/tasks/${taskId}`)).body.email;
}
