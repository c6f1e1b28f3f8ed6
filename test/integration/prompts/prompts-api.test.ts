import * as assert from 'uvu/assert';
import { promptNamesStream, promptStream } from '../../../src/domain/prompts/prompt-state.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { thenAppended, whenRequest } from '../../support/api-spec.ts';
import { createPrompt, promptPath } from '../../support/prompts.ts';
import { tablesSuite } from '../../support/tables.ts';

/*
 * The specs that read a read model (GET, list, versions, render, delete). The create refusals and name
 * uniqueness, which read only streams, are API specs in memory: test/unit/prompts/prompts-api.test.ts.
 */
const test = tablesSuite('prompts API: create, versions, get, list, render, delete');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

test('POST creates version 1 (201, Location); variables default to the placeholders; the event says so', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const when = await whenRequest(t, 'POST', '/api/prompts', {
    headers: bearer(key),
    body: { name: 'Intro', template: 'Write to {{ name }} at {{company}}.' },
  });
  const res = when.answer;
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.id, /^prm_[0-9a-z]{20}$/);
  assert.is(res.headers.location, `/api/prompts/${res.body.id}`);
  assert.equal(
    { ...res.body, id: undefined, createdAt: undefined, updatedAt: undefined },
    {
      id: undefined,
      name: 'Intro',
      description: null,
      template: 'Write to {{ name }} at {{company}}.',
      variables: [
        { name: 'name', required: true },
        { name: 'company', required: true },
      ],
      version: 1,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  assert.is(res.body.createdAt, res.body.updatedAt);
  const got = await call(t.app, 'GET', promptPath(res.body.id), { headers: bearer(key) });
  assert.equal(got.body, res.body);
  const [event] = await t.deps.store.readStream(promptStream.name(res.body.id));
  assert.is(event!.type, 'PromptTemplateCreated');
  assert.is(event!.metadata.actor, keyId);
  const { id: promptId, createdAt: at } = res.body;
  thenAppended(when, keyId, [
    {
      stream: promptNamesStream.name(organizationId),
      type: 'PromptNameClaimed',
      data: { organizationId, name: 'Intro', promptId },
    },
    {
      stream: promptStream.name(promptId),
      type: 'PromptTemplateCreated',
      data: {
        promptId,
        organizationId,
        name: 'Intro',
        description: null,
        template: 'Write to {{ name }} at {{company}}.',
        variables: [
          { name: 'name', required: true },
          { name: 'company', required: true },
        ],
        at,
      },
    },
  ]);
});

test('PATCH makes the next version; versions stay as they were; ?version= and /versions show each', async ({
  t,
  key,
}) => {
  const v1 = await createPrompt(t.app, key, {
    name: 'Versioned',
    description: 'first',
    template: 'Hi {{name}}{{sign}}',
    variables: [{ name: 'name' }, { name: 'sign', default: '!' }],
  });
  const patch = (body: object) => call(t.app, 'PATCH', promptPath(v1.id), { headers: bearer(key), body });
  const v2 = await patch({ template: 'Hello {{name}}{{sign}} from {{company}}' });
  assert.is(v2.status, 200, JSON.stringify(v2.body));
  assert.is(v2.body.version, 2);
  // The declarations it still uses are kept; the new placeholder is required.
  assert.equal(v2.body.variables, [
    { name: 'name', required: true },
    { name: 'sign', required: false, default: '!' },
    { name: 'company', required: true },
  ]);
  assert.is(v2.body.description, 'first');
  assert.is(v2.body.createdAt, v1.createdAt);
  const v3 = await patch({ name: 'Renamed', description: null });
  assert.is(v3.body.version, 3);
  assert.is(v3.body.name, 'Renamed');
  assert.is(v3.body.description, null);
  const same = await patch({ name: 'Renamed' });
  assert.is(same.body.version, 3, 'nothing changed: no version');
  const bad = await patch({ variables: [{ name: 'name' }] });
  assert.is(bad.status, 400);
  assert.equal(paths(bad.body), ['template', 'template']);
  assert.is((await patch({})).status, 400);

  const first = await call(t.app, 'GET', `${promptPath(v1.id)}?version=1`, { headers: bearer(key) });
  assert.equal(first.body, v1);
  const latest = await call(t.app, 'GET', promptPath(v1.id), { headers: bearer(key) });
  assert.equal(latest.body, v3.body);
  const missing = await call(t.app, 'GET', `${promptPath(v1.id)}?version=9`, { headers: bearer(key) });
  assert.is(missing.status, 404);
  const pages: number[][] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
    const page = await call(t.app, 'GET', `${promptPath(v1.id)}/versions${query}`, { headers: bearer(key) });
    assert.is(page.status, 200);
    pages.push(page.body.data.map((v: { version: number }) => v.version));
    cursor = page.body.nextCursor;
  } while (cursor);
  assert.equal(pages, [[1, 2], [3]]);
  // The old name is free again, the new one taken.
  await createPrompt(t.app, key, { name: 'Versioned', template: 'x' });
  const clash = await patch({ name: 'Versioned' });
  assert.is(clash.status, 409);
  assert.is(clash.body.code, 'prompt_name_taken');
});

test('render: latest or a version; defaults apply; each missing or unknown variable is a 422; unknown version 404', async ({
  t,
  key,
}) => {
  const p = await createPrompt(t.app, key, {
    name: 'Render me',
    template: 'Dear {{who}}, {{tone}}.',
    variables: [{ name: 'who' }, { name: 'tone', default: 'thanks' }],
  });
  await call(t.app, 'PATCH', promptPath(p.id), { headers: bearer(key), body: { template: 'Hi {{who}}' } });
  const render = (body: object) =>
    call(t.app, 'POST', `${promptPath(p.id)}/render`, { headers: bearer(key), body });
  assert.equal((await render({ variables: { who: 'Ada' } })).body, { text: 'Hi Ada', version: 2 });
  assert.equal((await render({ variables: { who: 'Ada' }, version: 1 })).body, {
    text: 'Dear Ada, thanks.',
    version: 1,
  });
  assert.equal(
    (await render({ variables: { who: 'Ada', tone: 'cheers' }, version: 1 })).body.text,
    'Dear Ada, cheers.',
  );
  const failed = await render({ variables: { tone: 'x', nope: 1 }, version: 1 });
  assert.is(failed.status, 422);
  assert.is(failed.body.code, 'render_failed');
  assert.equal(paths(failed.body), ['variables.nope', 'variables.who']);
  const unknownInLatest = await render({ variables: { who: 'Ada', tone: 'x' } });
  assert.is(unknownInLatest.status, 422);
  assert.equal(paths(unknownInLatest.body), ['variables.tone']);
  assert.is((await render({ variables: { who: 'Ada' }, version: 3 })).status, 404);
  assert.is((await render({ variables: 'nope' })).status, 400);
});

test('GET /api/prompts pages oldest first, own organization only; DELETE 204 then 404, name free', async ({
  t,
  otherKey,
}) => {
  const owner = (await bootstrapAccount(t.app)).apiKey;
  const ids: string[] = [];
  for (const name of ['a', 'b', 'c'])
    ids.push((await createPrompt(t.app, owner, { name, template: 'x' })).id);
  await createPrompt(t.app, otherKey, { name: 'theirs', template: 'x' });
  const page1 = await call(t.app, 'GET', '/api/prompts?limit=2', { headers: bearer(owner) });
  const page2 = await call(t.app, 'GET', `/api/prompts?limit=2&cursor=${page1.body.nextCursor}`, {
    headers: bearer(owner),
  });
  assert.equal(
    [...page1.body.data, ...page2.body.data].map((p: { id: string }) => p.id),
    ids,
  );
  assert.is(page2.body.nextCursor, null);
  assert.is((await call(t.app, 'GET', '/api/prompts?cursor=bm9wZQ', { headers: bearer(owner) })).status, 400);

  const deleted = await call(t.app, 'DELETE', promptPath(ids[0]!), { headers: bearer(owner) });
  assert.is(deleted.status, 204);
  for (const [method, path] of [
    ['GET', promptPath(ids[0]!)],
    ['GET', `${promptPath(ids[0]!)}/versions`],
    ['DELETE', promptPath(ids[0]!)],
    ['PATCH', promptPath(ids[0]!)],
  ] as const) {
    const res = await call(t.app, method, path, {
      headers: bearer(owner),
      body: method === 'PATCH' ? { name: 'z' } : undefined,
    });
    assert.is(res.status, 404, `${method} ${path}`);
  }
  await createPrompt(t.app, owner, { name: 'a', template: 'again' });
  for (const id of ['prm_nope', 'tbl_00000000000000000000']) {
    assert.is((await call(t.app, 'GET', promptPath(id), { headers: bearer(owner) })).status, 404);
  }
});

test('scopes and organizations: every route needs its scope (403) and refuses another organization (403)', async ({
  t,
  key,
  otherKey,
}) => {
  const p = await createPrompt(t.app, key, { name: 'Guarded', template: 'Hi {{who}}' });
  const reader = (await issueKey(t.app, key, ['prompts:read'])).apiKey;
  const writer = (await issueKey(t.app, key, ['prompts:write'])).apiKey;
  const neither = (await issueKey(t.app, key, ['tables:read', 'secrets:write'])).apiKey;
  const reads: [string, string, object?][] = [
    ['GET', '/api/prompts'],
    ['GET', promptPath(p.id)],
    ['GET', `${promptPath(p.id)}/versions`],
    ['POST', `${promptPath(p.id)}/render`, { variables: { who: 'x' } }],
  ];
  const writes: [string, string, object?][] = [
    ['POST', '/api/prompts', { name: 'New', template: 'x' }],
    ['PATCH', promptPath(p.id), { description: 'd' }],
    ['DELETE', promptPath(p.id)],
  ];
  for (const [routes, allowed, denied, scope] of [
    [reads, reader, [writer, neither], 'prompts:read'],
    [writes, writer, [reader, neither], 'prompts:write'],
  ] as const) {
    for (const [method, path, body] of routes) {
      for (const k of denied) {
        const res = await call(t.app, method, path, { headers: bearer(k), body });
        assert.is(res.status, 403, `${method} ${path}`);
        assert.is(res.body.scope, scope);
      }
      assert.is((await call(t.app, method, path, { body })).status, 401, `${method} ${path}`);
      // A template of another organization: 403, as a table of another organization is.
      if (path !== '/api/prompts') {
        const foreign = await call(t.app, method, path, { headers: bearer(otherKey), body });
        assert.is(foreign.status, 403, `another organization: ${method} ${path}`);
        assert.is(foreign.body.code, 'forbidden');
      }
      if (method !== 'DELETE') {
        const ok = await call(t.app, method, path, { headers: bearer(allowed), body });
        assert.ok(ok.status < 300, `${method} ${path}: ${ok.status}`);
      }
    }
  }
  const theirs = await call(t.app, 'GET', '/api/prompts?limit=100', { headers: bearer(otherKey) });
  assert.not.ok(theirs.body.data.some((x: { id: string }) => x.id === p.id));
  assert.is((await call(t.app, 'DELETE', promptPath(p.id), { headers: bearer(writer) })).status, 204);
});

test.run();
