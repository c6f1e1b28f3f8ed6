/**
 * API specs of the lead commands, which read only streams (the lead's, its identity keys'), on the
 * in-memory store (conventions 17 and 21): given the streams, when a request, then the answer and the
 * events it appended. The specs that read a read model too (a GET, a list, search) run on PostgreSQL,
 * in test/integration/leads/.
 */
import * as assert from 'uvu/assert';
import { leadCommands } from '../../../commands/leads/index.ts';
import type { LeadEvent } from '../../../src/domain/leads/events.ts';
import { normaliseLead } from '../../../src/domain/leads/lead.ts';
import { leadKeyStream, leadStream } from '../../../src/domain/leads/lead-state.ts';
import { bearer } from '../../support/accounts.ts';
import { givenStreams, thenAnswered, thenAppended, whenRequest } from '../../support/api-spec.ts';
import { NOW } from '../../support/decider-spec.ts';
import { memoryAppSuite } from '../../support/memory-app.ts';

const test = memoryAppSuite('leads API specs in memory: create or merge, edit, delete', leadCommands, {
  clock: () => NOW,
});

const at = NOW.toISOString();
const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

let leads = 0;
/** A live lead of `organizationId` made by hand, with the streams of it and of its identity keys. */
function aLead(organizationId: string, raw: Parameters<typeof normaliseLead>[0]) {
  const leadId = `led_spec${String(++leads).padStart(16, '0')}`;
  const data = normaliseLead(raw, 'manual').data;
  const created: LeadEvent = { type: 'LeadCreated', data: { leadId, organizationId, ...data, at } };
  const keys = (raw.emailAddresses ?? []).map((e) => `em:${String(e).toLowerCase()}`);
  const streams = {
    [leadStream.name(leadId)]: [created],
    ...Object.fromEntries(
      keys.map((key) => [
        leadKeyStream.name(organizationId, key),
        [{ type: 'LeadKeyClaimed', data: { organizationId, key, leadId } }],
      ]),
    ),
  };
  return { leadId, streams };
}

test('POST: bad values and a record without identity are 400s naming the field; nothing stored', async ({
  t,
  key,
  keyId,
}) => {
  const cases: [object, string[]][] = [
    [{ fullName: 'No Keys' }, ['linkedinUrl']],
    [{ emailAddresses: ['nope'] }, ['emailAddresses[0]']],
    [{ emailAddresses: ['a@b.org'], phoneNumbers: ['555 1234'] }, ['phoneNumbers[0]']],
    [{ linkedinUrl: 'https://example.com/in/x' }, ['linkedinUrl']],
    [{ fullName: 'X', companyDomain: 'not a domain', emailAddresses: ['x@y.org'] }, ['companyDomain']],
    [{ emailAddresses: ['a@b.org'], extra: 1 }, ['extra']],
  ];
  for (const [body, expected] of cases) {
    const when = await whenRequest(t, 'POST', '/api/leads', { headers: bearer(key), body });
    const res = thenAnswered(when, 400);
    assert.is(when.answer.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(
      paths(res).map((p) => p.replace(/^body\./, '')),
      expected,
      JSON.stringify(body),
    );
    // Nothing stored: no lead, no key claimed.
    thenAppended(when, keyId, []);
  }
});

test('POST: a new person is a lead (201) with each identity key claimed for it', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const when = await whenRequest(t, 'POST', '/api/leads', {
    headers: bearer(key),
    body: { fullName: 'Ada L', companyDomain: 'https://www.X.org/', emailAddresses: ['ADA@x.org'] },
  });
  const leadId = thenAnswered(when, 201).id;
  assert.is(when.answer.headers.location, `/api/leads/${leadId}`);
  const claimed = (key: string) => ({
    stream: leadKeyStream.name(organizationId, key),
    type: 'LeadKeyClaimed',
    data: { organizationId, key, leadId },
  });
  thenAppended(when, keyId, [
    claimed('em:ada@x.org'),
    {
      stream: leadStream.name(leadId),
      type: 'LeadCreated',
      data: {
        leadId,
        organizationId,
        firstName: null,
        lastName: null,
        fullName: 'Ada L',
        title: null,
        companyName: null,
        companyDomain: 'x.org',
        linkedinUrl: null,
        emailAddresses: [{ address: 'ada@x.org', source: 'manual' }],
        phoneNumbers: [],
        sources: [],
        at,
      },
    },
    claimed('nd:ada l@x.org'),
  ]);
});

test('POST: given a lead holding an email, a record with it merges (200): empty fields filled, the new email claimed', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const { leadId, streams } = aLead(organizationId, {
    fullName: 'Grace H',
    emailAddresses: ['grace@navy.mil'],
  });
  await givenStreams(t, streams);
  const when = await whenRequest(t, 'POST', '/api/leads', {
    headers: bearer(key),
    body: {
      fullName: 'Someone Else',
      title: 'Admiral',
      emailAddresses: ['GRACE@navy.mil', 'grace@home.org'],
    },
  });
  const merged = thenAnswered(when, 200);
  assert.is(merged.id, leadId);
  assert.is(merged.merged, true);
  assert.is(merged.fullName, 'Grace H', 'a merge never overwrites');
  thenAppended(when, keyId, [
    {
      stream: leadStream.name(leadId),
      type: 'LeadMerged',
      data: {
        leadId,
        additions: {
          fields: { title: 'Admiral' },
          emailAddresses: [{ address: 'grace@home.org', source: 'manual' }],
          phoneNumbers: [],
          sources: [],
        },
        from: null,
        at,
      },
    },
    {
      stream: leadKeyStream.name(organizationId, 'em:grace@home.org'),
      type: 'LeadKeyClaimed',
      data: { organizationId, key: 'em:grace@home.org', leadId },
    },
  ]);
});

test('PATCH edits what it sends (null clears); another organization is 403; DELETE is 204 then 404; refusals append nothing', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const { leadId, streams } = aLead(organizationId, {
    fullName: 'Edit Me',
    title: 'Old',
    emailAddresses: ['edit@me.org'],
  });
  await givenStreams(t, streams);
  const path = `/api/leads/${leadId}`;
  const edited = await whenRequest(t, 'PATCH', path, {
    headers: bearer(key),
    body: { title: 'New', fullName: null, phoneNumbers: ['+14155552671'] },
  });
  const body = thenAnswered(edited, 200);
  assert.is(body.title, 'New');
  assert.is(body.fullName, null);
  thenAppended(edited, keyId, [
    {
      stream: leadStream.name(leadId),
      type: 'LeadEdited',
      data: {
        leadId,
        fields: { fullName: null, title: 'New' },
        phoneNumbers: [{ number: '+14155552671', source: 'manual' }],
        at,
      },
    },
  ]);
  const other = t.issueKey();
  for (const [method, path2, body2] of [
    ['PATCH', path, { linkedinUrl: 'nope' }],
    ['PATCH', path, { title: 'x' }],
    ['DELETE', path, undefined],
  ] as const) {
    const as = body2?.linkedinUrl ? { key, keyId } : { key: other.apiKey, keyId: other.keyId };
    const refused = await whenRequest(t, method, path2, { headers: bearer(as.key), body: body2 });
    thenAnswered(refused, body2?.linkedinUrl ? 400 : 403);
    thenAppended(refused, as.keyId, []);
  }
  const deleted = await whenRequest(t, 'DELETE', path, { headers: bearer(key) });
  thenAnswered(deleted, 204);
  thenAppended(deleted, keyId, [
    { stream: leadStream.name(leadId), type: 'LeadDeleted', data: { leadId, at } },
  ]);
  const again = await whenRequest(t, 'DELETE', path, { headers: bearer(key) });
  assert.is(thenAnswered(again, 404).code, 'not_found');
  thenAppended(again, keyId, []);
});

test.run();
