/**
 * The test command: one PostgreSQL for the whole run (embedded unless DATABASE_URL is given), every
 * uvu suite under test/unit, test/integration and test/e2e in this process, and one closing line
 * `N passed, N failed, N skipped` with the counts summed over all suites. Every response of an
 * in-process test app is checked against its OpenAPI document and searched for secrets
 * (test/support/conformance.ts, secret-scan.ts): each violation and leak found counts as a failure.
 */
import { parse } from 'uvu/parse';
import { contract } from './support/conformance.ts';
import { startTestServer } from './support/postgres.ts';
import { leaks } from './support/secret-scan.ts';

const counts = { total: 0, passed: 0, skipped: 0 };
const write = process.stdout.write.bind(process.stdout);
// uvu prints its totals and keeps no API for them: read them off its own output.
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colour codes uvu prints
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  for (const [, key, value] of plain.matchAll(/(Total|Passed|Skipped):\s+(\d+)/g)) {
    if (key === 'Total') counts.total += Number(value);
    if (key === 'Passed') counts.passed += Number(value);
    if (key === 'Skipped') counts.skipped += Number(value);
  }
  // uvu names each test file on a line of its own before running its suites.
  for (const [, file] of plain.matchAll(/^(\S+\.test\.ts)$/gm)) contract.currentFile = file as string;
  return write(chunk as string, ...(rest as []));
}) as typeof process.stdout.write;

const filter = process.argv[2];
const server = await startTestServer();
process.env.STK_TEST_ADMIN_URL = server.adminUrl;
let crashed = false;
try {
  const { run } = await import('uvu/run');
  // Test files only, then the filter on their names: a filter matching this runner's own name (`run`)
  // must not make it import itself.
  const { suites } = await parse('test', /\.test\.ts$/, { ignore: /support/ });
  const chosen = filter ? suites.filter((suite) => new RegExp(filter).test(suite.name)) : suites;
  chosen.sort((a, b) => a.name.localeCompare(b.name));
  await run(chosen, { bail: false });
} catch (error) {
  crashed = true;
  console.error(error);
} finally {
  await server.stop();
}
process.stdout.write = write;
const findings = [...contractViolations(), ...secretLeaks()];
for (const line of findings) console.log(line);
console.log(`contract: ${contract.checked} responses checked, ${contract.violations.length} violations`);
console.log(`secrets: ${leaks.length} leaks`);
const failed = counts.total - counts.passed + (crashed ? 1 : 0) + findings.length;
console.log(`${counts.passed} passed, ${failed} failed, ${counts.skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

/** One line per distinct violation (operation, status and reason), with the files that produced it. */
function contractViolations(): string[] {
  const groups = new Map<string, Set<string>>();
  for (const { source, exchange: e, reason } of contract.violations) {
    const key = `contract: ${e.method} ${e.route ?? e.url} ${e.status} ${e.contentType ?? '(no type)'}: ${reason}`;
    groups.set(key, (groups.get(key) ?? new Set()).add(source));
  }
  return [...groups].map(([key, files]) => `${key}\n    in ${[...files].join(', ')}`);
}

function secretLeaks(): string[] {
  const groups = new Map<string, Set<string>>();
  for (const { source, where, what } of leaks) {
    const key = `secret leak: ${what} in ${where}`;
    groups.set(key, (groups.get(key) ?? new Set()).add(source));
  }
  return [...groups].map(([key, files]) => `${key}\n    in ${[...files].join(', ')}`);
}
