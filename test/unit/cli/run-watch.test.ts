import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Progress } from '../../../app/cli/admin/progress.ts';
import { followRun, type WatchStreams, watchMode } from '../../../app/cli/run-watch.ts';

const test = suite('stk runs watch: a bar for a terminal, JSON lines for a pipe (decided by stdout)');

const run = (status: string, done: number) => ({
  id: 'run_1',
  status,
  counts: { total: 3, queued: 3 - done, running: 0, succeeded: done, failed: 0, skipped: 0 },
  credits: { reserved: 3, charged: done, refunded: 0 },
});

/** The run as the service answers it poll after poll (the third poll sees no change). */
const polls = () => {
  const answers = [run('queued', 0), run('running', 1), run('running', 1), run('succeeded', 3)];
  return async () => answers.shift() ?? run('succeeded', 3);
};

/** A stream that keeps what is written, a terminal or not. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  const write = (chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  };
  return { written, stream: { isTTY, write } as unknown as NodeJS.WriteStream };
}

/** Watches the scripted run with these streams; answers what each stream got and the bar's updates. */
async function watch(stdoutTTY: boolean, stderrTTY: boolean, json = false) {
  const stdout = stream(stdoutTTY);
  const stderr = stream(stderrTTY);
  const bar: string[] = [];
  const progress = (label: string): Progress => ({
    update: (value, total) => bar.push(`${label} ${value}/${total}`),
    stop: () => bar.push('stop'),
  });
  const streams: WatchStreams = { stdout: stdout.stream, stderr: stderr.stream };
  const ended = await followRun(polls(), {
    label: 'run run_1',
    intervalMs: 1,
    json,
    human: (r) => `Status: ${r.status}`,
    streams,
    progress,
  });
  return { ended, stdout: stdout.written.join(''), stderr: stderr.written.join(''), bar };
}

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

test('stdout piped, stderr a terminal (`stk runs watch X | jq`): JSON lines only, no bar, no record', async () => {
  const seen = await watch(false, true);
  const lines = jsonLines(seen.stdout);
  assert.equal(
    lines.map((l) => [l.status, l.counts.succeeded]),
    [
      ['queued', 0],
      ['running', 1],
      ['succeeded', 3],
    ],
    'one line per change, the last one the ended run',
  );
  assert.equal(seen.bar, []);
  assert.is(seen.stderr, '');
  assert.is(seen.ended.status, 'succeeded');
});

test('stdout a terminal, stderr piped: the bar (on stderr), then the run as a person reads it', async () => {
  const seen = await watch(true, false);
  assert.equal(seen.bar, ['run run_1 0/3', 'run run_1 1/3', 'run run_1 1/3', 'run run_1 3/3', 'stop']);
  assert.is(seen.stdout, 'Status: succeeded\n');
});

test('both terminals: the bar and the record; --json on a terminal: JSON lines', async () => {
  const both = await watch(true, true);
  assert.is(both.bar.at(-1), 'stop');
  assert.is(both.stdout, 'Status: succeeded\n');
  const json = await watch(true, true, true);
  assert.equal(json.bar, []);
  assert.is(jsonLines(json.stdout).at(-1).status, 'succeeded');
});

test('the decision reads stdout only', () => {
  assert.is(watchMode({ isTTY: true }, false), 'bar');
  assert.is(watchMode({ isTTY: false }, false), 'lines');
  assert.is(watchMode({}, false), 'lines');
  assert.is(watchMode({ isTTY: true }, true), 'lines');
});

test('the bar by default goes to the given stderr', async () => {
  const stdout = stream(true);
  const stderr = stream(false);
  await followRun(polls(), {
    label: 'run run_1',
    intervalMs: 1,
    json: false,
    human: (r) => r.status,
    streams: { stdout: stdout.stream, stderr: stderr.stream },
  });
  assert.match(stderr.written.join(''), /run run_1: 3\/3 rows/);
  assert.is(stdout.written.join(''), 'succeeded\n');
});

test.run();
