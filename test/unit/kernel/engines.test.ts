/**
 * Issue 33, item 7: the Node versions package.json promises (`engines`, and the README with it) are
 * versions every package of the lockfile says it runs on, so that `npm ci` prints no EBADENGINE on
 * any of them. A package that wants more is pinned or replaced (package.json `overrides`), or the
 * promise changes, on purpose.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../${name}`, import.meta.url), 'utf8'));
const pkg = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as {
  packages: Record<string, { version?: string; engines?: unknown }>;
};

test('package.json promises a Node range, and the README says the same', () => {
  assert.ok(semver.validRange(pkg.engines.node), pkg.engines.node);
  assert.ok(
    semver.satisfies(process.version, pkg.engines.node),
    `this Node (${process.version}) is promised`,
  );
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  assert.match(readme, 'Node 20.19+ or 22.12+');
});

test('every package of the lockfile runs on every Node version package.json promises', () => {
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    // An `engines` given as an array is the old npm form, and not about Node.
    const node = (entry.engines as { node?: string } | undefined)?.node;
    if (!path || typeof node !== 'string') continue;
    if (!semver.subset(pkg.engines.node, node, { includePrerelease: false }))
      refused.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants Node ${node}`);
  }
  assert.equal(refused, [], `promised: ${pkg.engines.node}`);
});

test.run();
