import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { RouteOptions } from 'fastify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { argumentPath, requestOf } from '../../../app/mcp/caller.ts';
import {
  ANY_KEY,
  type Catalog,
  catalogOf,
  type OpenApiDocument,
  resolveRefs,
} from '../../../app/mcp/tools.ts';
import { service } from '../../../app/modules.ts';
import { SCOPES } from '../../../src/auth/scopes.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { documentPath } from '../../support/fuzz/operations.ts';
import { startMemoryApp } from '../../support/memory-app.ts';

/**
 * Issue 35: the MCP tools are the service's OpenAPI document read one way, never written by hand.
 * Each operation is a tool named by its operationId or left out with a reason docs/mcp.md gives; each
 * tool's access is its route's declared access; its schemas compile as the SDK's client compiles them.
 */
interface Ctx {
  doc: OpenApiDocument;
  catalog: Catalog;
  /** `METHOD /path` (as the document writes it) -> the route's declared access. */
  access: Map<string, string>;
}

const test = suite<Ctx>('mcp tools derived from the OpenAPI document');

test.before(async (ctx) => {
  ctx.access = new Map();
  const collector: RouteModule = (app) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      const access = (route.config as { access?: string } | undefined)?.access;
      for (const method of [route.method].flat())
        if (access) ctx.access.set(`${method} ${documentPath(route.url)}`, access);
    });
  };
  const m = await startMemoryApp({ routes: [collector, ...service.routes] });
  try {
    ctx.doc = (await m.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument;
  } finally {
    await m.close();
  }
  ctx.catalog = catalogOf(ctx.doc);
});

test('every operation of the document is a tool named by its operationId, or left out with a reason', ({
  doc,
  catalog,
}) => {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      id: op.operationId,
    })),
  );
  const tools = new Set(catalog.tools.map((t) => `${t.method} ${t.path}`));
  const left = new Set(catalog.leftOut.map((l) => `${l.method} ${l.path}`));
  for (const { key, id } of operations) {
    assert.ok(tools.has(key) !== left.has(key), `${key} is a tool or left out, not both`);
    if (tools.has(key)) assert.is(catalog.tools.find((t) => `${t.method} ${t.path}` === key)?.name, id, key);
  }
  assert.is(new Set(catalog.tools.map((t) => t.name)).size, catalog.tools.length, 'tool names are unique');
  assert.ok(catalog.tools.length > 80, `${catalog.tools.length} tools`);
});

test('left out: what takes no API key (health, the blog, sign-up) and what takes a secret of its own', ({
  catalog,
}) => {
  const left = catalog.leftOut.map((l) => l.operationId ?? `${l.method} ${l.path}`).sort();
  for (const id of [
    'checkLiveness',
    'checkReadiness',
    'getMetrics',
    'syncContent',
    'syncContentSlugs',
    'getBlogIndex',
    'getBlogArticle',
    'getBlogFeed',
    'getSitemap',
    'bootstrapAccount',
    'loginWithPassword',
  ])
    assert.ok(left.includes(id), `${id} is left out`);
  for (const l of catalog.leftOut)
    assert.ok(!l.path.startsWith('/api/') || /auth|content\/sync/.test(l.path), `${l.path}: ${l.why}`);
});

test('docs/mcp.md names every operation left out, and no other', ({ catalog }) => {
  const text = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## What is left out'));
  const named = new Set([...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]));
  assert.equal([...named].sort(), catalog.leftOut.map((l) => l.operationId as string).sort());
});

test("each tool's access is its route's declared access, so a key's tool list is what its scopes allow", ({
  catalog,
  access,
}) => {
  for (const tool of catalog.tools) {
    const declared = access.get(`${tool.method} ${tool.path}`);
    assert.is(tool.access, declared, `${tool.name}`);
    assert.ok(tool.access === ANY_KEY || (SCOPES as readonly string[]).includes(tool.access), tool.name);
  }
});

test("every tool's schemas are objects that compile as the SDK's client compiles them", ({ catalog }) => {
  // The client's own validator: ajv, not strict, with formats (@modelcontextprotocol/sdk/validation/ajv).
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats.default(ajv);
  for (const tool of catalog.tools) {
    assert.is(tool.inputSchema.type, 'object', tool.name);
    ajv.compile(tool.inputSchema);
    if (tool.outputSchema) {
      assert.is(tool.outputSchema.type, 'object', tool.name);
      ajv.compile(tool.outputSchema);
    }
    const refs = JSON.stringify(tool).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs)
      assert.match(ref, /"\$ref":"#\/\$defs\//, `${tool.name}: ${ref} points into the tool's own $defs`);
  }
});

test('annotations come from the route: reads, deletes, repeats and the outside world', ({ catalog }) => {
  const hints = (name: string) => {
    const a = catalog.byName.get(name)?.annotations;
    assert.ok(a, name);
    return [a?.readOnlyHint, a?.destructiveHint, a?.idempotentHint, a?.openWorldHint];
  };
  assert.equal(hints('getTable'), [true, false, true, false]);
  assert.equal(hints('queryRows'), [true, false, true, false], 'a POST that only reads');
  assert.equal(hints('deleteTable'), [false, true, true, false]);
  assert.equal(hints('deleteRows'), [false, true, true, false], 'a delete by POST');
  assert.equal(hints('putSecret'), [false, false, true, false]);
  assert.equal(hints('patchTable'), [false, false, false, false]);
  assert.equal(hints('createTable'), [false, false, true, false], 'honours Idempotency-Key');
  assert.equal(
    hints('issueApiKey'),
    [false, false, false, false],
    'refuses Idempotency-Key: a secret shown once',
  );
  assert.equal(hints('startColumnRun')[3], true);
  assert.equal(hints('searchWeb')[3], true);
  assert.equal(hints('sendWebhookTest')[3], true);
  assert.equal(hints('getLinkedinProfile'), [true, false, true, true]);
});

test("a recursive schema (a run condition) stays a reference into the tool's own $defs", ({ catalog }) => {
  const create = catalog.byName.get('createColumn');
  assert.ok(create);
  const defs = (create?.inputSchema.$defs ?? {}) as Record<string, unknown>;
  assert.ok(defs.RunCondition, 'its recursion is in $defs');
  assert.match(JSON.stringify(create?.inputSchema.properties), '"$ref":"#/$defs/RunCondition"');
  const schema = resolveRefs(
    { $ref: '#/components/schemas/A' },
    { A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } }, B: { type: 'string' } },
  );
  assert.equal(schema, { type: 'object', properties: { b: { type: 'string' } } });
});

test("a tool call's request: path, query and header parameters by name, the body as body", ({ catalog }) => {
  const list = catalog.byName.get('listRows');
  const made = requestOf(list as never, { tableId: 'tbl 1', limit: 5, cursor: 'c' });
  assert.equal(made.request, {
    method: 'GET',
    url: '/api/tables/tbl%201/rows?limit=5&cursor=c',
    headers: {},
  });
  const insert = catalog.byName.get('insertRows');
  const post = requestOf(insert as never, { tableId: 't', body: { rows: [] }, 'idempotency-key': 'k1' });
  assert.equal(post.request, {
    method: 'POST',
    url: '/api/tables/t/rows',
    headers: { 'idempotency-key': 'k1' },
    body: { rows: [] },
  });
  assert.equal(requestOf(insert as never, { body: {} }).problem?.errors, [
    { path: 'tableId', message: 'required' },
  ]);
  assert.is(argumentPath(insert as never, 'rows[0].cells.n'), 'body.rows[0].cells.n');
  assert.is(argumentPath(insert as never, 'params.tableId'), 'tableId');
  assert.is(argumentPath(insert as never, 'headers.idempotency-key'), 'idempotency-key');
  assert.is(argumentPath(list as never, 'querystring.limit'), 'limit');
});

test.run();
