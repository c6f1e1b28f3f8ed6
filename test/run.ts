/**
 * The test command: one PostgreSQL for the whole run (embedded unless DATABASE_URL is given), every
 * uvu suite under test/unit, test/integration and test/e2e in this process, and one closing line
 * `N passed, N failed, N skipped` with the counts summed over all suites.
 */
import { parse } from 'uvu/parse';
import { startTestServer } from './support/postgres.ts';

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
  return write(chunk as string, ...(rest as []));
}) as typeof process.stdout.write;

const filter = process.argv[2];
const server = await startTestServer();
process.env.STK_TEST_ADMIN_URL = server.adminUrl;
let crashed = false;
try {
  const { run } = await import('uvu/run');
  const { suites } = await parse('test', filter ? new RegExp(filter) : /\.test\.ts$/, { ignore: /support/ });
  suites.sort((a, b) => a.name.localeCompare(b.name));
  await run(suites, { bail: false });
} catch (error) {
  crashed = true;
  console.error(error);
} finally {
  await server.stop();
}
const failed = counts.total - counts.passed + (crashed ? 1 : 0);
process.stdout.write = write;
console.log(`${counts.passed} passed, ${failed} failed, ${counts.skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
