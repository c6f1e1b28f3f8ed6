import * as assert from 'uvu/assert';
import { leadStream } from '../../../src/domain/leads/lead-state.ts';
import { bearer, call, issueKey } from '../../support/accounts.ts';
import { tablesSuite } from '../../support/tables.ts';

/*
 * The specs that read a read model (GET, list, search). The refused creates, and the events each
 * create, merge, edit and delete appends, are API specs in memory: test/unit/leads/leads-api.test.ts.
 */
const test = tablesSuite('leads API: create or merge, get, list, search, edit, delete');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

test('POST: 201 with Location for a new lead, values normalised; the same person again is 200 merged', async ({
  t,
  key,
}) => {
  const created = await call(t.app, 'POST', '/api/leads', {
    headers: bearer(key),
    body: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      companyDomain: 'https://www.Analytical.org/',
      linkedinUrl: 'uk.linkedin.com/in/Ada-Lovelace/',
      emailAddresses: ['ADA@analytical.org'],
      phoneNumbers: [{ number: '+44 20 7946 0958', source: 'switchboard' }],
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.id, /^led_/);
  assert.is(created.headers.location, `/api/leads/${created.body.id}`);
  assert.is(created.body.merged, false);
  assert.is(created.body.fullName, 'Ada Lovelace');
  assert.is(created.body.companyDomain, 'analytical.org');
  assert.is(created.body.linkedinUrl, 'https://www.linkedin.com/in/ada-lovelace');
  assert.equal(created.body.emailAddresses, [{ address: 'ada@analytical.org', source: 'manual' }]);
  assert.equal(created.body.phoneNumbers, [{ number: '+442079460958', source: 'switchboard' }]);

  const merged = await call(t.app, 'POST', '/api/leads', {
    headers: bearer(key),
    body: {
      title: 'Countess',
      fullName: 'Someone Else',
      emailAddresses: [{ address: 'ada@ANALYTICAL.org' }, 'ada@home.org'],
    },
  });
  assert.is(merged.status, 200, JSON.stringify(merged.body));
  assert.is(merged.body.merged, true);
  assert.is(merged.body.id, created.body.id);
  assert.is(merged.body.fullName, 'Ada Lovelace', 'a merge never overwrites');
  assert.is(merged.body.title, 'Countess', 'a merge fills an empty field');
  assert.equal(
    merged.body.emailAddresses.map((e: { address: string }) => e.address),
    ['ada@analytical.org', 'ada@home.org'],
  );
  const got = await call(t.app, 'GET', `/api/leads/${created.body.id}`, { headers: bearer(key) });
  const { merged: _merged, ...lead } = merged.body;
  assert.equal(got.body, lead);
});

test('GET list: pages by cursor without repeats; q matches name, email or domain; other organizations see none', async ({
  t,
  key,
  otherKey,
}) => {
  for (let i = 0; i < 5; i++) {
    const res = await call(t.app, 'POST', '/api/leads', {
      headers: bearer(key),
      body: { fullName: `Pager ${i}`, companyDomain: `pager${i}.io`, emailAddresses: [`pager${i}@mail.io`] },
    });
    assert.is(res.status, 201);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await call(
      t.app,
      'GET',
      `/api/leads?q=pager&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      { headers: bearer(key) },
    );
    seen.push(...page.body.data.map((l) => l.id));
    cursor = page.body.nextCursor;
  } while (cursor);
  assert.is(seen.length, 5);
  assert.is(new Set(seen).size, 5);
  for (const q of ['Pager 3', 'pager3@', 'PAGER3.IO']) {
    const res = await call(t.app, 'GET', `/api/leads?q=${encodeURIComponent(q)}`, { headers: bearer(key) });
    assert.equal(
      res.body.data.map((l: { fullName: string }) => l.fullName),
      ['Pager 3'],
      q,
    );
  }
  const percent = await call(t.app, 'GET', '/api/leads?q=%25', { headers: bearer(key) });
  assert.equal(percent.body.data, [], '% is literal');
  const other = await call(t.app, 'GET', '/api/leads?q=pager', { headers: bearer(otherKey) });
  assert.equal(other.body.data, []);
  const bad = await call(t.app, 'GET', '/api/leads?cursor=nope', { headers: bearer(key) });
  assert.is(bad.status, 400);
  assert.equal(paths(bad.body), ['querystring.cursor']);
});

test('PATCH overwrites what it sends (null clears); DELETE answers 204 and the lead is gone; a new record may then take its keys', async ({
  t,
  key,
  otherKey,
}) => {
  const made = await call(t.app, 'POST', '/api/leads', {
    headers: bearer(key),
    body: { fullName: 'Edit Me', title: 'Old', emailAddresses: ['edit@me.org'] },
  });
  const path = `/api/leads/${made.body.id}`;
  const edited = await call(t.app, 'PATCH', path, {
    headers: bearer(key),
    body: { title: 'New', fullName: null, phoneNumbers: ['+14155552671'] },
  });
  assert.is(edited.status, 200, JSON.stringify(edited.body));
  assert.is(edited.body.title, 'New');
  assert.is(edited.body.fullName, null);
  assert.equal(edited.body.phoneNumbers, [{ number: '+14155552671', source: 'manual' }]);
  const badPatch = await call(t.app, 'PATCH', path, { headers: bearer(key), body: { linkedinUrl: 'nope' } });
  assert.is(badPatch.status, 400);
  assert.equal(paths(badPatch.body), ['linkedinUrl']);
  assert.is(
    (await call(t.app, 'PATCH', path, { headers: bearer(otherKey), body: { title: 'x' } })).status,
    403,
  );
  assert.is((await call(t.app, 'DELETE', path, { headers: bearer(otherKey) })).status, 403);
  assert.is((await call(t.app, 'DELETE', path, { headers: bearer(key) })).status, 204);
  assert.is((await call(t.app, 'GET', path, { headers: bearer(key) })).status, 404);
  assert.is((await call(t.app, 'DELETE', path, { headers: bearer(key) })).status, 404);
  const again = await call(t.app, 'POST', '/api/leads', {
    headers: bearer(key),
    body: { emailAddresses: ['edit@me.org'] },
  });
  assert.is(again.status, 201, 'a deleted lead does not absorb new records');
  assert.is.not(again.body.id, made.body.id);
  assert.is((await call(t.app, 'GET', '/api/leads/led_nope', { headers: bearer(key) })).status, 404);
  const events = await t.deps.store.readStream(leadStream.name(made.body.id));
  assert.equal(
    events.map((e) => e.type),
    ['LeadCreated', 'LeadEdited', 'LeadDeleted'],
  );
});

test('scopes: leads:read reads, leads:write writes; neither is refused', async ({ t, key }) => {
  const reader = (await issueKey(t.app, key, ['leads:read'])).apiKey;
  const writer = (await issueKey(t.app, key, ['leads:write'])).apiKey;
  assert.is((await call(t.app, 'GET', '/api/leads', { headers: bearer(reader) })).status, 200);
  assert.is((await call(t.app, 'GET', '/api/leads', { headers: bearer(writer) })).status, 403);
  const body = { emailAddresses: ['scoped@x.org'] };
  assert.is((await call(t.app, 'POST', '/api/leads', { headers: bearer(reader), body })).status, 403);
  assert.is((await call(t.app, 'POST', '/api/leads', { headers: bearer(writer), body })).status, 201);
});

test.run();
