import * as assert from 'uvu/assert';
import { ENROLLMENT_MACHINE } from '../../../src/domain/sequences/machines.ts';
import { bearer, call } from '../../support/accounts.ts';
import {
  activeSequence,
  addMember,
  addSender,
  callStep,
  createLead,
  emailStep,
  enroll,
  sequenceAction,
} from '../../support/sequences.ts';
import { tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('enrollments and sender accounts API');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();
let n = 0;
const person = () => {
  n++;
  return { fullName: `Person ${n}`, emailAddresses: [`person${n}@example.com`] };
};

test('one outcome per lead, in order: enrolled, already_enrolled, lead_not_found, no_email_for_email_step', async ({
  t,
  key,
  otherKey,
}) => {
  const sequenceId = await activeSequence(t.app, key, { steps: [emailStep] });
  const withEmail = await createLead(t.app, key, person());
  const noEmail = await createLead(t.app, key, { fullName: 'No Mail', companyDomain: 'nomail.io' });
  const theirs = await createLead(t.app, otherKey, person());
  const res = await enroll(t.app, key, sequenceId, {
    leadIds: [withEmail, withEmail, 'led_nope', theirs, noEmail],
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(
    res.body.data.map((o: { outcome: string; reason?: string }) => [o.outcome, o.reason]),
    [
      ['enrolled', undefined],
      ['skipped', 'already_enrolled'],
      ['failed', 'lead_not_found'],
      ['failed', 'lead_not_found'],
      ['failed', 'no_email_for_email_step'],
    ],
  );
  assert.match(res.body.data[0].enrollmentId, /^enr_/);
  const again = await enroll(t.app, key, sequenceId, { leadIds: [withEmail] });
  assert.equal(again.body.data[0], { leadId: withEmail, outcome: 'skipped', reason: 'already_enrolled' });
  const list = await call(t.app, 'GET', `/api/sequences/${sequenceId}/enrollments`, { headers: bearer(key) });
  assert.is(list.body.data.length, 1);
  assert.is(list.body.data[0].status, 'active');
  const got = await call(t.app, 'GET', `/api/sequences/${sequenceId}`, { headers: bearer(key) });
  assert.equal(got.body.stats, { enrolled: 1, active: 1, paused: 0, finished: 0, failed: 0 });
});

test('the conflict skip: a lead active in another sequence is skipped with already_active_in:<id> only when asked', async ({
  t,
  key,
}) => {
  const first = await activeSequence(t.app, key);
  const second = await activeSequence(t.app, key);
  const third = await activeSequence(t.app, key);
  const lead = await createLead(t.app, key, person());
  assert.is((await enroll(t.app, key, first, { leadIds: [lead] })).body.data[0].outcome, 'enrolled');
  const skipped = await enroll(t.app, key, second, { leadIds: [lead], skipActiveSequenceConflicts: true });
  assert.equal(skipped.body.data[0], {
    leadId: lead,
    outcome: 'skipped',
    reason: `already_active_in:${first}`,
  });
  const allowed = await enroll(t.app, key, third, { leadIds: [lead] });
  assert.is(allowed.body.data[0].outcome, 'enrolled', 'without the flag a lead may be in two sequences');
  // Once its other enrollments are finished, the skip lets it in.
  for (const s of [first, third]) {
    const id = (await call(t.app, 'GET', `/api/sequences/${s}/enrollments`, { headers: bearer(key) })).body
      .data[0].id;
    assert.is(
      (await call(t.app, 'POST', `/api/enrollments/${id}/finish`, { headers: bearer(key) })).status,
      200,
    );
  }
  const now = await enroll(t.app, key, second, { leadIds: [lead], skipActiveSequenceConflicts: true });
  assert.is(now.body.data[0].outcome, 'enrolled');
});

test('every transition of the enrollment machine, legal and illegal', async ({ t, key }) => {
  const sequenceId = await activeSequence(t.app, key);
  const reach: Record<string, string[]> = { active: [], paused: ['pause'], finished: ['finish'] };
  for (const [status, path] of Object.entries(reach)) {
    for (const action of ['pause', 'resume', 'finish']) {
      const lead = await createLead(t.app, key, person());
      const id = (await enroll(t.app, key, sequenceId, { leadIds: [lead] })).body.data[0].enrollmentId;
      const act = (a: string) => call(t.app, 'POST', `/api/enrollments/${id}/${a}`, { headers: bearer(key) });
      for (const step of path) assert.is((await act(step)).status, 200);
      const res = await act(action);
      const next = (ENROLLMENT_MACHINE as Record<string, Record<string, string>>)[status]![action];
      if (next) {
        assert.is(res.status, 200, `${status} ${action}`);
        assert.is(res.body.status, next);
        assert.is(res.body.finishedReason, next === 'finished' ? 'manual' : null);
      } else {
        assert.is(res.status, 409, `${status} ${action}`);
        assert.is(res.body.code, 'invalid_transition');
        assert.equal(res.body.allowedActions, Object.keys(ENROLLMENT_MACHINE[status as 'active']));
      }
    }
  }
  assert.is(
    (await call(t.app, 'POST', '/api/enrollments/enr_nope/pause', { headers: bearer(key) })).status,
    404,
  );
});

test('a sequence with active enrollments is not deleted (409 sequence_in_use); ARCHIVED takes no enrollments', async ({
  t,
  key,
}) => {
  const sequenceId = await activeSequence(t.app, key);
  const lead = await createLead(t.app, key, person());
  const id = (await enroll(t.app, key, sequenceId, { leadIds: [lead] })).body.data[0].enrollmentId;
  const refused = await call(t.app, 'DELETE', `/api/sequences/${sequenceId}`, { headers: bearer(key) });
  assert.is(refused.status, 409);
  assert.is(refused.body.code, 'sequence_in_use');
  assert.is(refused.body.activeEnrollments, 1);
  await call(t.app, 'POST', `/api/enrollments/${id}/finish`, { headers: bearer(key) });
  await sequenceAction(t.app, key, sequenceId, 'archive');
  const archived = await enroll(t.app, key, sequenceId, {
    leadIds: [await createLead(t.app, key, person())],
  });
  assert.is(archived.status, 409);
  assert.is(
    (await call(t.app, 'DELETE', `/api/sequences/${sequenceId}`, { headers: bearer(key) })).status,
    204,
  );
});

test('sender accounts: of a member; explicit ones checked (400 naming the field); otherwise the assignee defaults', async ({
  t,
  key,
  otherKey,
}) => {
  const member = await addMember(t.app, key, `member${Date.now()}@example.com`);
  const outsider = (await call(t.app, 'GET', '/api/me', { headers: bearer(otherKey) })).body.userData.id;
  const bad = await call(t.app, 'POST', '/api/sender-accounts', {
    headers: bearer(key),
    body: { type: 'email', address: 'x@example.com', userId: outsider, dailyLimit: 10 },
  });
  assert.is(bad.status, 400);
  assert.equal(paths(bad.body), ['userId']);
  const notEmail = await call(t.app, 'POST', '/api/sender-accounts', {
    headers: bearer(key),
    body: { type: 'email', address: 'nope', userId: member, dailyLimit: 10 },
  });
  assert.equal(paths(notEmail.body), ['address']);
  const email = await addSender(t.app, key, { type: 'email', address: 'Member@Example.com', userId: member });
  const linkedin = await addSender(t.app, key, {
    type: 'linkedin',
    address: 'linkedin.com/in/member',
    userId: member,
  });
  const listed = await call(t.app, 'GET', '/api/sender-accounts', { headers: bearer(key) });
  assert.equal(
    listed.body.data.map((s: { id: string }) => s.id),
    [email, linkedin],
  );
  assert.is(listed.body.data[0].address, 'member@example.com');

  const sequenceId = await activeSequence(t.app, key, { steps: [callStep] });
  const lead = await createLead(t.app, key, person());
  const wrongType = await enroll(t.app, key, sequenceId, {
    leadIds: [lead],
    senderAccountIds: { email: linkedin },
  });
  assert.is(wrongType.status, 400);
  assert.equal(paths(wrongType.body), ['senderAccountIds.email']);
  const notMember = await enroll(t.app, key, sequenceId, { leadIds: [lead], assigneeUserId: outsider });
  assert.equal(paths(notMember.body), ['assigneeUserId']);
  const ok = await enroll(t.app, key, sequenceId, { leadIds: [lead], assigneeUserId: member });
  assert.is(ok.body.data[0].outcome, 'enrolled');
  const enrollment = (
    await call(t.app, 'GET', `/api/sequences/${sequenceId}/enrollments`, { headers: bearer(key) })
  ).body.data[0];
  assert.equal(enrollment.senderAccountIds, { email, linkedin });
  assert.is(enrollment.assigneeUserId, member);
  assert.is(
    (await call(t.app, 'DELETE', `/api/sender-accounts/${email}`, { headers: bearer(otherKey) })).status,
    403,
  );
  assert.is(
    (await call(t.app, 'DELETE', `/api/sender-accounts/${email}`, { headers: bearer(key) })).status,
    204,
  );
  assert.is(
    (await call(t.app, 'GET', `/api/sender-accounts/${email}`, { headers: bearer(key) })).status,
    404,
  );
});

test.run();
