/**
 * Issue 32: `npm run bench:rows-scale` on tiny sizes (BENCH_SMOKE=1: a few hundred rows, a few samples)
 * against the test run's PostgreSQL, in seconds: every phase runs (the growth, each page and its
 * physical limit, the import, the estimate, a run's start) and the growth table is written, to a file
 * of the test's. Its numbers are not looked at: targets are reported by the benchmark, never asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase } from '../../support/postgres.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const test = suite('bench:rows-scale runs on tiny sizes');

test('the growth table, each figure beside its limit, at two sizes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'stk-rows-scale-'));
  try {
    // The run's server (test/run.ts starts it; a lone suite starts it through its first database).
    await (await freshDatabase()).drop();
    const report = join(dir, 'report.md');
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/rows-scale.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_SMOKE: '1',
        BENCH_SCALE_SIZES: '150,400',
        BENCH_REPORT_FILE: report,
        DATABASE_URL: process.env.STK_TEST_ADMIN_URL,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    assert.is(code, 0, output.slice(-4000));
    const written = await readFile(report, 'utf8');
    assert.match(written, /^## Rows at scale$/m);
    for (const row of [
      'first page by text, asc',
      'first page by date, desc',
      '50th page by cursor',
      'text equality',
      'number range',
      'date range',
      'filter + sort',
      'estimate, 3-rule condition',
      'import, rows/s',
      'run start over every row',
      'column deleted (indexes, cells)',
      'column created (indexes)',
      'RSS before',
    ])
      assert.ok(written.includes(`| ${row}`), `${row} in\n${written}`);
    assert.match(written, /\| p50 \/ p99 ms \(limit p50 \/ p99\) \| 150 rows \| 400 rows \|/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
