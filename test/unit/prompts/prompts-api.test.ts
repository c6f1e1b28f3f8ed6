/**
 * API specs of the prompt commands that read no read model (create and its name claim), on the
 * in-memory store (conventions 17 and 21): given the streams, when a request, then the answer and the
 * events it appended. The specs that read a read model too (a GET, a list, versions, render, a delete
 * that asks which columns use the template) run on PostgreSQL, in test/integration/prompts/.
 */
import * as assert from 'uvu/assert';
import { promptCommands } from '../../../commands/prompts/index.ts';
import { promptNamesStream, promptStream } from '../../../src/domain/prompts/prompt-state.ts';
import { bearer } from '../../support/accounts.ts';
import { thenAnswered, thenAppended, whenRequest } from '../../support/api-spec.ts';
import { NOW } from '../../support/decider-spec.ts';
import { memoryAppSuite } from '../../support/memory-app.ts';

const test = memoryAppSuite('prompts API specs in memory: create, names', promptCommands, {
  clock: () => NOW,
});

const at = NOW.toISOString();
const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

test('placeholder rules: a declared unused variable or an undeclared placeholder is a 400 naming it; nothing stored', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const cases: [object, string[]][] = [
    [
      { name: 'P1', template: '{{a}}', variables: [{ name: 'a' }, { name: 'unused' }] },
      ['variables[1].name'],
    ],
    [{ name: 'P2', template: '{{a}} {{b}}', variables: [{ name: 'a' }] }, ['template']],
    [{ name: 'P3', template: '{{secrets.token}}' }, ['template']],
    [{ name: 'P4', template: '' }, ['template']],
    [{ name: ' ', template: 'x' }, ['name']],
    [{ name: 'P5', template: 'x', extra: 1 }, ['extra']],
    [
      { name: 'P6', template: '{{a}}', variables: [{ name: 'a', required: true, default: 'x' }] },
      ['variables[0].required'],
    ],
  ];
  for (const [body, expected] of cases) {
    const when = await whenRequest(t, 'POST', '/api/prompts', { headers: bearer(key), body });
    const res = thenAnswered(when, 400);
    assert.is(res.code, 'validation_failed');
    assert.equal(paths(res), expected, JSON.stringify(body));
    // Nothing stored: no template, and no name claimed.
    thenAppended(when, keyId, []);
  }
  // A refused create left its name free.
  const created = await whenRequest(t, 'POST', '/api/prompts', {
    headers: bearer(key),
    body: { name: 'P1', template: 'x' },
  });
  const promptId = thenAnswered(created, 201).id;
  thenAppended(created, keyId, [
    {
      stream: promptNamesStream.name(organizationId),
      type: 'PromptNameClaimed',
      data: { organizationId, name: 'P1', promptId },
    },
    {
      stream: promptStream.name(promptId),
      type: 'PromptTemplateCreated',
      data: { promptId, organizationId, name: 'P1', description: null, template: 'x', variables: [], at },
    },
  ]);
});

test('names are unique per organization (409); another organization may use the same name', async ({
  t,
  key,
  keyId,
}) => {
  const first = await whenRequest(t, 'POST', '/api/prompts', {
    headers: bearer(key),
    body: { name: 'Unique', template: 'x' },
  });
  thenAnswered(first, 201);
  const again = await whenRequest(t, 'POST', '/api/prompts', {
    headers: bearer(key),
    body: { name: 'Unique', template: 'y' },
  });
  const refused = thenAnswered(again, 409);
  assert.is(refused.code, 'prompt_name_taken');
  assert.equal(paths(refused), ['name']);
  thenAppended(again, keyId, []);
  const other = t.issueKey();
  const theirs = await whenRequest(t, 'POST', '/api/prompts', {
    headers: bearer(other.apiKey),
    body: { name: 'Unique', template: 'z' },
  });
  const promptId = thenAnswered(theirs, 201).id;
  thenAppended(theirs, other.keyId, [
    {
      stream: promptNamesStream.name(other.organizationId),
      type: 'PromptNameClaimed',
      data: { organizationId: other.organizationId, name: 'Unique', promptId },
    },
    {
      stream: promptStream.name(promptId),
      type: 'PromptTemplateCreated',
      data: {
        promptId,
        organizationId: other.organizationId,
        name: 'Unique',
        description: null,
        template: 'z',
        variables: [],
        at,
      },
    },
  ]);
});

test.run();
