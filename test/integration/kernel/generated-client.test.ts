/**
 * Issue 33, item 6: a client generated from the document the service serves, as a user makes one
 * (docs/openapi.md). openapi-typescript writes the types of /openapi.json; the sample program
 * docs/examples/client.ts (openapi-fetch) must type-check against them with the project's compiler,
 * a misspelled field of an http_request config must not (its `@ts-expect-error`), and the program
 * must run against the service: bootstrap, a table and typed columns, rows, an estimate, a run, the
 * rows read back. A schema the server does not keep to fails here (the program's checks, or the
 * contract check of every answer in test/run.ts); one the program does not keep to fails to compile.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from '../../support/app.ts';
import { type CountingTarget, startRunsApp, startTarget } from '../../support/runs.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * openapi-typescript runs on the TypeScript 5 compiler API, which TypeScript 7 (the project's `tsc`)
 * no longer has: its `import 'typescript'` is resolved to the `typescript5` package (package.json),
 * for that package only.
 */
const TYPESCRIPT_5_FOR_OPENAPI_TYPESCRIPT = `
export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/'))
    return next('typescript5', context);
  return next(specifier, context);
}`;

async function generateTypes(doc: unknown): Promise<string> {
  register(`data:text/javascript,${encodeURIComponent(TYPESCRIPT_5_FOR_OPENAPI_TYPESCRIPT)}`);
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  // As docs/openapi.md says to: a field with a default stays optional in a request (the answers list
  // such fields as required anyway).
  return astToString(await openapiTS(doc as never, { silent: true, defaultNonNullable: false }));
}

/** The project's compiler over one directory; its diagnostics when it refuses. */
async function typeCheck(dir: string): Promise<string | undefined> {
  try {
    await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', dir], { timeout: 120_000 });
    return undefined;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}`.trim() || String(error);
  }
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: ['node'],
  },
  files: ['client.ts', 'api.ts'],
};

interface Ctx {
  t: TestApp;
  target: CountingTarget;
  dir: string;
  /** The generated types. */
  api: string;
}

const test = suite<Ctx>('a client generated from /openapi.json');

test.before(async (ctx) => {
  ctx.t = await startRunsApp();
  ctx.target = await startTarget({ answer: (n) => ({ n, double: Number(n) * 2 }) });
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-client-'));
  // Where the sample finds openapi-fetch and @types/node: the project's own.
  await symlink(join(ROOT, 'node_modules'), join(ctx.dir, 'node_modules'), 'dir');
  await copyFile(join(ROOT, 'docs/examples/client.ts'), join(ctx.dir, 'client.ts'));
  await writeFile(join(ctx.dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  await writeFile(join(ctx.dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const doc = (await ctx.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  ctx.api = await generateTypes(doc);
  await writeFile(join(ctx.dir, 'api.ts'), ctx.api);
});

test.after(async (ctx) => {
  await ctx.target?.close();
  await ctx.t?.close();
  if (ctx.dir) await rm(ctx.dir, { recursive: true, force: true });
});

test('the generated types name every operation and type a column config by provider', ({ api }) => {
  assert.match(api, /export interface operations \{/);
  for (const id of ['listTables', 'createColumn', 'patchColumn', 'startColumnRun', 'receiveRowCreated'])
    assert.match(api, new RegExp(`\\b${id}: \\{`), `operations.${id}`);
  assert.match(api, /HttpRequestConfig: \{/);
  assert.match(api, /provider: "http_request";/);
  assert.match(api, /export interface webhooks \{/);
});

test('the sample program type-checks against them; a misspelled config field does not', async ({ dir }) => {
  assert.is(await typeCheck(dir), undefined);
});

test('without its @ts-expect-error, the misspelled http_request config is a compile error', async ({
  dir,
}) => {
  const copy = await mkdtemp(join(tmpdir(), 'stk-client-typo-'));
  try {
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const { readFile } = await import('node:fs/promises');
    const sample = await readFile(join(dir, 'client.ts'), 'utf8');
    const unchecked = sample.replace(/^\s*\/\/ @ts-expect-error .*$/m, '');
    assert.is.not(unchecked, sample, 'the sample marks the misspelling');
    await writeFile(join(copy, 'client.ts'), unchecked);
    await copyFile(join(dir, 'api.ts'), join(copy, 'api.ts'));
    await copyFile(join(dir, 'tsconfig.json'), join(copy, 'tsconfig.json'));
    await copyFile(join(dir, 'package.json'), join(copy, 'package.json'));
    const refused = await typeCheck(copy);
    assert.ok(refused, 'the misspelling compiles');
    assert.match(refused, /methd/);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
});

test('the sample program runs against the service', async ({ t, target, dir }) => {
  const { tour } = (await import(pathToFileURL(join(dir, 'client.ts')).href)) as {
    tour: (
      baseUrl: string,
      target: string,
      email: string,
    ) => Promise<{
      run: { status: string; counts: Record<string, number> };
      rows: { cells: Record<string, unknown>; cellStatus: Record<string, { status: string }> }[];
    }>;
  };
  const email = `client-${randomBytes(6).toString('hex')}@example.test`;
  const { run, rows } = await tour(t.url, target.url, email);
  assert.is(run.status, 'succeeded', JSON.stringify(run));
  assert.equal(
    rows.map((row) => row.cells).sort((a, b) => String(a.n).localeCompare(String(b.n))),
    ['1', '2', '3'].map((n) => ({ n, result: { n, double: Number(n) * 2 } })),
  );
});

test.run();
