import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorCatalogue, routeStatuses } from '../../../src/errors.ts';

/*
 * The error catalogue (src/errors.ts) checked both ways: against the code that raises its codes and
 * against the documents that describe them. The scan reads the sources as text: a code is raised by
 * `new AppError('code'` (a handler), `problemOf('code'` (the HTTP layer's own answers) or a row
 * `408: ['code', ...]` of the HTTP layer's table of what is refused before routing.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SOURCE_DIRS = ['src', 'commands', 'queries', 'projections', 'services', 'processes', 'app'];

const sources = SOURCE_DIRS.flatMap((dir) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: join(dir, file), text: readFileSync(join(ROOT, dir, file), 'utf8') })),
);
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const docs = readdirSync(join(ROOT, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => ({ file: `docs/${file}`, text: read(`docs/${file}`) }))
  .concat({ file: 'README.md', text: read('README.md') });

const catalogue = new Map(Object.entries(errorCatalogue).map(([code, { status }]) => [code, status]));

/** Where each code is raised: file names by code. */
function raisedCodes(): Map<string, string[]> {
  const raised = new Map<string, string[]>();
  for (const { file, text } of sources) {
    for (const [, code] of text.matchAll(
      /(?:\b(?:new AppError|problemOf)\(|^\s*\d{3}: \[)\s*'([a-z_]+)'/gm,
    )) {
      raised.set(code!, [...(raised.get(code!) ?? []), file]);
    }
  }
  return raised;
}

/** The rows of the catalogue table in docs/errors.md: `| \`code\` | status | when |`. */
function documentedRows(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const [, code, status] of read('docs/errors.md').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) {
    assert.not.ok(rows.has(code!), `docs/errors.md lists ${code} twice`);
    rows.set(code!, Number(status));
  }
  return rows;
}

test('the scan sees every AppError: each names its code as a literal', () => {
  for (const { file, text } of sources) {
    for (const match of text.matchAll(/\bnew AppError\((?!\s*'[a-z_]+')/g)) {
      const line = text.slice(0, match.index).split('\n').length;
      assert.unreachable(`${file}:${line} builds an AppError from a code the scan cannot read`);
    }
  }
});

test('every code raised in the code is in the catalogue', () => {
  for (const [code, files] of raisedCodes()) {
    assert.ok(catalogue.has(code), `${code} (raised in ${files.join(', ')}) is not in src/errors.ts`);
  }
});

test('every code of the catalogue is raised somewhere', () => {
  const raised = raisedCodes();
  const never = [...catalogue.keys()].filter((code) => !raised.has(code));
  assert.equal(never, [], `never raised: ${never.join(', ')}`);
});

test('docs/errors.md lists every code of the catalogue, with its status', () => {
  const rows = documentedRows();
  for (const [code, status] of catalogue) {
    assert.is(rows.get(code), status, `docs/errors.md: ${code} should be listed with ${status}`);
  }
});

test('every code docs/errors.md lists exists in the catalogue', () => {
  const unknown = [...documentedRows().keys()].filter((code) => !catalogue.has(code));
  assert.equal(unknown, [], `docs/errors.md lists codes src/errors.ts does not have: ${unknown.join(', ')}`);
});

test('a status named with a code anywhere in the docs is that code of the catalogue', () => {
  // "409 `column_key_taken`", "`429` problem, code `rate_limited`"
  const cited = /`?\b([45]\d\d)\b`?(?: problem,)?(?: code)? `([a-z][a-z_]+)`/g;
  const seen = new Set<string>();
  for (const { file, text } of docs) {
    for (const [, status, code] of text.matchAll(cited)) {
      seen.add(code!);
      assert.ok(catalogue.has(code!), `${file} cites ${status} ${code}, which src/errors.ts does not have`);
      const allowed = [catalogue.get(code!), ...(routeStatuses[code as keyof typeof routeStatuses] ?? [])];
      assert.ok(allowed.includes(Number(status)), `${file} cites ${code} as ${status}`);
    }
  }
  // The pattern still reads both ways the docs cite a code (else a stale citation would pass unseen).
  assert.ok(seen.has('column_key_taken') && seen.has('sync_in_progress'), [...seen].join(', '));
});

test.run();
