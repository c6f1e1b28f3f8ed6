/**
 * `npm run bench`: every benchmark, one after another, each in its own process (a benchmark may change
 * process-wide settings, and each starts and stops its own PostgreSQL). Append new benchmarks here.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BENCHMARKS: string[] = [
  'eventstore.ts',
  'auth.ts',
  'columns.ts',
  'sync.ts',
  'rebuild.ts',
  'rows.ts',
  'runs.ts',
  'webhooks.ts',
  'tasks.ts',
];

async function runOne(file: string): Promise<number> {
  const script = fileURLToPath(new URL(`./${file}`, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const only = process.argv[2];
const selected = only ? BENCHMARKS.filter((file) => file.includes(only)) : BENCHMARKS;
if (selected.length === 0) throw new Error(`no benchmark matches "${only}"; known: ${BENCHMARKS.join(', ')}`);
const failed: string[] = [];
for (const file of selected) {
  console.log(`\n=== bench/${file} ===`);
  if ((await runOne(file)) !== 0) failed.push(file);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
