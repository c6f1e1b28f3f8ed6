import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs the real entry point with `env` and collects its exit code and output. */
function runService(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

const test = suite('config: the process refuses a bad value');

test('a bad PORT stops the process with a non-zero code and a message naming it', async () => {
  const { code, output } = await runService({
    PORT: 'eighty',
    // A secret beside the bad value: the refusal must not print it.
    DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/stk',
    CRON_SECRET: 'hunter2-cron',
  });
  assert.is.not(code, 0);
  assert.is.not(code, null);
  assert.match(output, /PORT: .*expected number/);
  assert.not.match(output, 'hunter2');
});

test('a bad DATABASE_URL is named without echoing it', async () => {
  const { code, output } = await runService({ DATABASE_URL: 'mysql://root:hunter2@db/stk' });
  assert.is(code, 1);
  assert.match(output, 'DATABASE_URL: expected a postgres:// URL');
  assert.not.match(output, 'hunter2');
});

test.run();
