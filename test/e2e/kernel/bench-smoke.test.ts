/**
 * Issue 34, item 13: every `bench:*` script of package.json runs to its end, on tiny sizes
 * (BENCH_SMOKE=1, bench/lib/smoke.ts), against the test run's PostgreSQL. A benchmark that no longer
 * runs (a route it compares answering 500, a check that its sizes cannot pass) fails here rather than
 * in the hands of whoever next measures. The report goes to a file of the test's: docs/benchmarks.md
 * is left as it was.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase } from '../../support/postgres.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** A smoke run takes seconds; past this, the benchmark is taken for one that does not end. */
const TIMEOUT_MS = 180_000;

interface Context {
  dir: string;
  adminUrl: string;
  benchmarksMd: string;
}
const test = suite<Context>('every bench:* script runs to its end on tiny sizes');

const digest = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

const scripts: Record<string, string> = JSON.parse(
  await readFile(join(ROOT, 'package.json'), 'utf8'),
).scripts;
const benches = Object.keys(scripts).filter((name) => name.startsWith('bench:'));

test.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'stk-bench-smoke-'));
  // The run's server (test/run.ts starts it; a lone suite starts it through its first database).
  await (await freshDatabase()).drop();
  ctx.adminUrl = process.env.STK_TEST_ADMIN_URL!;
  ctx.benchmarksMd = await digest(join(ROOT, 'docs/benchmarks.md'));
});
test.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** `npm run <script>`: npm's own CLI when the tests run under npm, else `npm` on the PATH. */
function npmRun(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const npm = process.env.npm_execpath;
  const [file, args] = npm?.endsWith('.js')
    ? [process.execPath, [npm, 'run', script]]
    : ['npm', ['run', script]];
  return spawn(file, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

test('package.json has bench scripts, each a file of bench/', () => {
  assert.ok(benches.length >= 10, benches.join(', '));
  for (const name of benches) assert.match(scripts[name]!, /\bbench\/[\w-]+\.ts\b/, name);
});

for (const name of benches) {
  test(`npm run ${name}`, async (ctx) => {
    const report = join(ctx.dir, `${name.replace(':', '-')}.md`);
    const child = npmRun(name, {
      ...process.env,
      BENCH_SMOKE: '1',
      BENCH_REPORT_FILE: report,
      DATABASE_URL: ctx.adminUrl,
      LOG_LEVEL: 'warn',
    });
    let output = '';
    child.stdout?.on('data', (d) => {
      output += d;
    });
    child.stderr?.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    assert.is(code, 0, `${name} exited ${code} after ${seconds} s:\n${output.slice(-4000)}`);
    // It measured and wrote its section, to the test's file.
    const written = await readFile(report, 'utf8').catch(() => '');
    assert.match(written, /^## .+/m, `${name} wrote no section:\n${output.slice(-2000)}`);
  });
}

test('docs/benchmarks.md is left as it was', async (ctx) => {
  assert.is(await digest(join(ROOT, 'docs/benchmarks.md')), ctx.benchmarksMd);
});

test.run();
