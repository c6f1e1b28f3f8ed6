/**
 * Issue 33: the document the service serves at /openapi.json, read as API users' tools read it.
 * OpenAPI 3.1 with nothing of 3.0 left; Redocly's `recommended` and Spectral's `spectral:oas` rulesets
 * clean (with the committed redocly.yaml and .spectral.yaml); every operation with a stable operation
 * id, the ids a contract kept in docs/operation-ids.txt; tags declared; responses described.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { COLUMN_PROVIDERS } from '../../../processes/runs/providers/index.ts';
import { CATALOGUE } from '../../../src/domain/webhooks/catalogue.ts';
import { startMemoryApp } from '../../support/memory-app.ts';
import { type LintProblem, lintOpenApi, tally } from '../../support/openapi-lint.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  responses?: Record<string, { description?: string }>;
}
interface Doc {
  openapi: string;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { description?: string }> };
}

const IDS_FILE = new URL('../../../docs/operation-ids.txt', import.meta.url);

/** Every operation: in `paths` by method and path, in `webhooks` as `POST webhooks/<event type>`. */
function operationsOf(doc: Doc) {
  const ops: { method: string; where: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item))
      ops.push({ method: method.toUpperCase(), where: path, op });
  for (const [name, item] of Object.entries(doc.webhooks ?? {}))
    for (const [method, op] of Object.entries(item))
      ops.push({ method: method.toUpperCase(), where: `webhooks/${name}`, op });
  return ops;
}

/**
 * The first word of every operation id, so that ids read alike (`listTables`, `patchColumn`). A new
 * verb joins on purpose, here.
 */
const VERBS = [
  'activate',
  'add',
  'archive',
  'bootstrap',
  'bulk',
  'check',
  'clone',
  'create',
  'delete',
  'draft',
  'enroll',
  'estimate',
  'finish',
  'get',
  'insert',
  'issue',
  'list',
  'login',
  'patch',
  'pause',
  'put',
  'query',
  'receive',
  'redeliver',
  'render',
  'reorder',
  'replay',
  'resume',
  'revoke',
  'rotate',
  'run',
  'schedule',
  'search',
  'send',
  'start',
  'stop',
  'sync',
];
const ID = new RegExp(`^(${VERBS.join('|')})(?:[A-Z][a-z0-9]*)+$`);

/** Each JSON pointer under `node` whose object has `key` and passes `test`. */
function findKeys(node: unknown, key: string, test: (value: unknown) => boolean, at = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => findKeys(v, key, test, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const here = key in node && test((node as Record<string, unknown>)[key]) ? [at || '/'] : [];
  return [
    ...here,
    ...Object.entries(node).flatMap(([k, v]) => findKeys(v, key, test, `${at}/${k.replace(/\//g, '~1')}`)),
  ];
}

const test = suite<{ doc: Doc; problems: LintProblem[]; docs: { page: number; json: unknown } }>(
  'OpenAPI document',
);

test.before(async (ctx) => {
  // As a deployment serves it: SITE_URL is the public URL (a development server's localhost is what
  // Redocly's no-server-example.com rule warns of).
  const m = await startMemoryApp({ routes: service.routes, env: { SITE_URL: 'https://stk.test' } });
  try {
    const answer = await m.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.is(answer.statusCode, 200);
    ctx.doc = answer.json() as Doc;
    const page = await m.app.inject({ method: 'GET', url: '/docs/' });
    const json = await m.app.inject({ method: 'GET', url: '/docs/json' });
    ctx.docs = { page: page.statusCode, json: json.json() };
  } finally {
    await m.close();
  }
  ctx.problems = await lintOpenApi(ctx.doc);
});

test('is OpenAPI 3.1, with its server, and nothing of OpenAPI 3.0 left', ({ doc }) => {
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.equal(doc.servers, [{ url: 'https://stk.test', description: 'This service (its SITE_URL)' }]);
  assert.equal(
    findKeys(doc, 'nullable', () => true),
    [],
    '`nullable` is 3.0: 3.1 says type null',
  );
  const singleAllOf = findKeys(doc, 'allOf', (v) => Array.isArray(v) && v.length === 1);
  assert.equal(singleAllOf, [], 'no allOf wrapping a single schema');
});

test('/docs shows the same document', ({ doc, docs }) => {
  assert.is(docs.page, 200);
  assert.equal(docs.json, doc);
});

test("Redocly's recommended rules: no error, no warning", ({ problems }) => {
  const redocly = problems.filter((p) => p.linter === 'redocly');
  assert.equal(
    tally(redocly),
    [],
    redocly
      .slice(0, 10)
      .map((p) => `${p.where}: ${p.message}`)
      .join('\n'),
  );
});

test("Spectral's spectral:oas rules: no error, no warning, nothing", ({ problems }) => {
  const spectral = problems.filter((p) => p.linter === 'spectral');
  assert.equal(
    tally(spectral),
    [],
    spectral
      .slice(0, 10)
      .map((p) => `${p.where}: ${p.message}`)
      .join('\n'),
  );
});

test('every operation has an id, unique and camelCase verb-noun', ({ doc }) => {
  const ops = operationsOf(doc);
  const missing = ops.filter(({ op }) => !op.operationId).map(({ method, where }) => `${method} ${where}`);
  assert.equal(missing, [], 'each route declares `operationId` in its schema, where it is registered');
  const seen = new Map<string, string>();
  for (const { method, where, op } of ops) {
    const id = op.operationId as string;
    assert.ok(!seen.has(id), `${id} is the id of both ${seen.get(id)} and ${method} ${where}`);
    seen.set(id, `${method} ${where}`);
    assert.match(
      id,
      ID,
      `${id} (${method} ${where}): camelCase, starting with one of the verbs of this test`,
    );
  }
});

test('the operation ids are those of docs/operation-ids.txt: none missing, none renamed, none new', ({
  doc,
}) => {
  const listed = readFileSync(IDS_FILE, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [id, method, where] = line.split(/\s+/);
      return { id: id as string, key: `${method} ${where}` };
    });
  const served = new Map(
    operationsOf(doc).map(({ method, where, op }) => [op.operationId, `${method} ${where}`]),
  );
  const byKey = new Map([...served].map(([id, key]) => [key, id]));
  const known = new Set(listed.map((l) => l.id));
  const findings: string[] = [];
  for (const { id, key } of listed) {
    if (served.get(id) === key) continue;
    if (served.has(id)) findings.push(`${id} moved from ${key} to ${served.get(id)}`);
    else if (byKey.has(key))
      findings.push(`${key} was ${id} and is now ${byKey.get(key)}: ids are not renamed`);
    else findings.push(`${id} (${key}) is gone`);
  }
  for (const [id, key] of served)
    if (!known.has(id as string))
      findings.push(`${id} ${key} is new: add this line to docs/operation-ids.txt`);
  const duplicates = listed.filter((l, i) => listed.findIndex((o) => o.id === l.id) !== i);
  for (const { id } of duplicates) findings.push(`${id} is listed twice`);
  assert.equal(findings, []);
});

test('every operation has a summary, a description and declared tags; every tag is used', ({ doc }) => {
  const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  const used = new Set<string>();
  for (const { method, where, op } of operationsOf(doc)) {
    const name = `${method} ${where}`;
    assert.ok(op.summary, `${name} has a summary`);
    assert.ok(op.description, `${name} has a description`);
    assert.ok(op.tags?.length, `${name} has a tag`);
    for (const tag of op.tags ?? []) {
      assert.ok(declared.has(tag), `${name}: tag ${tag} is declared at the top of the document`);
      used.add(tag);
    }
  }
  for (const [name, description] of declared) {
    assert.ok(description, `tag ${name} has a description`);
    assert.ok(used.has(name), `tag ${name} is used`);
  }
});

test('every operation says who may call it: an API key, or `security: []` when public', ({ doc }) => {
  for (const { method, where, op } of operationsOf(doc))
    assert.ok(Array.isArray(op.security), `${method} ${where} declares its security`);
});

test('every response says what its status means', ({ doc }) => {
  for (const { method, where, op } of operationsOf(doc))
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      assert.ok(response.description, `${method} ${where} ${status}`);
      assert.is.not(response.description, 'Default Response', `${method} ${where} ${status}`);
    }
});

test('an `Input` twin of a schema is left only where it differs, and says why', ({ doc }) => {
  const { schemas } = doc.components;
  for (const [name, schema] of Object.entries(schemas)) {
    if (!name.endsWith('Input')) continue;
    const base = name.slice(0, -'Input'.length);
    assert.ok(base in schemas, `${name} stands alone: it should take the name ${base}`);
    assert.match(String(schema.description), `${base} as a request sends it`);
  }
});

test("a column's config: one schema per provider, by `provider`, in create, PATCH and the Column", ({
  doc,
}) => {
  const refs = (node: unknown) =>
    new Set(
      findKeys(node, '$ref', () => true).map((at) => {
        let here: unknown = node;
        for (const key of at.split('/').filter(Boolean)) here = (here as Record<string, unknown>)[key];
        return String((here as { $ref: string }).$ref).replace('#/components/schemas/', '');
      }),
    );
  type Body = { requestBody: { content: Record<string, { schema: { properties: { config: unknown } } }> } };
  const body = (path: string, method: string) => {
    const op = doc.paths[path]?.[method] as Body | undefined;
    const schema = op?.requestBody.content['application/json']?.schema;
    assert.ok(schema, `${method} ${path} takes a JSON body`);
    return schema;
  };
  const ids = COLUMN_PROVIDERS.map((p) => String(p.configSchema.meta()?.id));
  const created = refs(body('/api/tables/{tableId}/columns', 'post').properties.config);
  const patched = refs(body('/api/tables/{tableId}/columns/{columnId}', 'patch').properties.config);
  const shown = refs(
    (doc.components.schemas.Column as { properties: { config: unknown } }).properties.config,
  );
  for (const id of ids) {
    assert.ok(created.has(id) || created.has(`${id}Input`), `create takes ${id}`);
    assert.ok(patched.has(id.replace(/Config$/, 'ConfigPatch')), `PATCH takes ${id}'s patch form`);
    assert.ok(shown.has(id), `a Column shows ${id}`);
  }
  for (const id of [...created, ...patched, ...shown])
    assert.ok(id in doc.components.schemas, `${id} is a component`);
});

test('the webhooks: one per event type of the catalogue, each with its payload', ({ doc }) => {
  assert.equal(Object.keys(doc.webhooks ?? {}).sort(), CATALOGUE.map((e) => e.type).sort());
});

test.run();
