/**
 * The floors of the house (docs/architecture.md, "Where code lives"), checked on the import graph of
 * the tree as it is: no import from a lower floor up, a pure domain, and no import circle anywhere
 * (type-only imports included: a circle of types still ties the files together).
 *
 * The imports are read with a pattern over the source, not a parser: TypeScript 7 ships no compiler
 * API for tools such as dependency-cruiser to parse with, and every import here is a static
 * `import ... from '...'`, `export ... from '...'` or `import('...')` (biome keeps the form).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cycles, floorOf, importsOf, violations } from '../../support/import-graph.ts';

const root = resolve(import.meta.dirname, '../../..');
const FOLDERS = ['src', 'projections', 'services', 'commands', 'queries', 'processes', 'app'];

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  for (const folder of FOLDERS) walk(folder);
  return files;
}

const graph = new Map(
  sourceFiles().map((file) => [
    file,
    importsOf(readFileSync(join(root, file), 'utf8')).map((spec) => ({
      ...spec,
      target: spec.relative ? relative(root, resolve(root, dirname(file), spec.specifier)) : spec.specifier,
    })),
  ]),
);

test('the reader sees every form of import the tree uses', () => {
  const seen = importsOf(
    [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "import {\n  c,\n  type D,\n} from './c.ts';",
      "export { e } from './e.ts';",
      "export type { F } from './f.ts';",
      "const g = await import('./g.ts');",
      "import 'side-effect';",
      "// import { no } from './comment.ts';",
    ].join('\n'),
  );
  assert.equal(
    seen.map((s) => [s.specifier, s.typeOnly]),
    [
      ['./a.ts', false],
      ['../b.ts', true],
      ['./c.ts', false],
      ['./e.ts', false],
      ['./f.ts', true],
      ['./g.ts', false],
      ['side-effect', false],
    ],
  );
});

test('each floor is known: every source file belongs to one', () => {
  for (const file of graph.keys()) assert.ok(floorOf(file), `${file} is on no floor`);
  assert.is(floorOf('src/domain/columns/events.ts'), 'domain');
  assert.is(floorOf('src/http/app.ts'), 'kernel');
  assert.is(floorOf('processes/runs/run-driver.ts'), 'application');
});

test('the checker catches an upward import, an impure domain import and a circle', () => {
  const made = new Map([
    [
      'src/http/app.ts',
      [{ specifier: '', target: 'commands/tables/create-table.ts', typeOnly: true, relative: true }],
    ],
    ['src/domain/rows/cells.ts', [{ specifier: 'pg', target: 'pg', typeOnly: false, relative: false }]],
    ['commands/a.ts', [{ specifier: '', target: 'commands/b.ts', typeOnly: true, relative: true }]],
    ['commands/b.ts', [{ specifier: '', target: 'commands/a.ts', typeOnly: false, relative: true }]],
  ]);
  assert.is(violations(made).length, 2);
  assert.equal(cycles(made), [['commands/a.ts', 'commands/b.ts']]);
});

test('no import from a lower floor up, and the domain imports only pure modules', () => {
  assert.equal(violations(graph), []);
});

test('no import circle anywhere, type-only imports included', () => {
  assert.equal(cycles(graph), []);
});

test.run();
