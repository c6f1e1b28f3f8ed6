import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * `npm run bench:mcp` on tiny sizes (BENCH_SMOKE=1) against this run's PostgreSQL: every phase runs to
 * the end, every call of both variants succeeds (a failed call fails the benchmark), and the report
 * says each ratio. It measures nothing worth keeping, so it writes to a file of its own.
 */
test('bench:mcp runs to the end on tiny sizes and reports each tool against its route', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-mcp-'));
  const report = join(dir, 'report.md');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/mcp.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_SMOKE: '1',
        BENCH_REPORT_FILE: report,
        ...(process.env.STK_TEST_ADMIN_URL ? { DATABASE_URL: process.env.STK_TEST_ADMIN_URL } : {}),
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
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.is(code, 0, output);
    const text = await readFile(report, 'utf8');
    assert.match(text, '## MCP');
    for (const tool of ['getTable', 'listRows', 'patchTable']) assert.match(text, `tools/call ${tool} (MCP)`);
    assert.match(text, /read \(getTable\): \*\*\d\.\d\dx/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
