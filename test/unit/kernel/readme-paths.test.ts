/**
 * Issue 34, item 12: the README is read in a clone, which holds this repository and nothing beside
 * it. Every file it names (a link, or a path in backticks) is in the repository; none is outside it
 * (it sent readers to `../shared/spec/service-contract.md`); and it shows how to bootstrap without a
 * terminal (`--password-stdin`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('README.md names only files of the repository');
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const readme = readFileSync(`${ROOT}README.md`, 'utf8');

/** Relative link targets and backticked paths (`a/b.ts`), less placeholders (`<name>`, `*`, `{x}`). */
function namedPaths(text: string): string[] {
  const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target));
  const ticked = [
    ...text.matchAll(/`((?:\.\.?\/)?[\w.@-]+(?:\/[\w.@-]+)+\.(?:md|ts|mjs|js|json|sql|ya?ml))`/g),
  ].map((m) => m[1]!);
  return [...new Set([...links, ...ticked])];
}

test('every file the README names exists in the repository, and none lies outside it', () => {
  const paths = namedPaths(readme);
  assert.ok(paths.length > 10, paths.join(', '));
  for (const path of paths) {
    assert.not.ok(path.startsWith('../'), `${path} is outside the repository`);
    assert.ok(existsSync(`${ROOT}${path.replace(/^\.\//, '')}`), `${path} is not in the repository`);
  }
});

test('the reference is the repository: its docs and /openapi.json; bootstrap is shown without a terminal', () => {
  assert.not.match(readme, 'service-contract');
  assert.match(readme, '/openapi.json');
  assert.match(readme, /stk bootstrap [^\n]*--password-stdin/);
});

test.run();
