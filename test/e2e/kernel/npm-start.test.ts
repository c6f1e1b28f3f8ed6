/**
 * Issue 34, item 11: the service as a user starts it, `npm start`, and stops it, `kill <pid of npm>`.
 * npm forwards SIGTERM to its child only: the script must make that child the service itself (it
 * was a shell, then tsx's launcher, then node, and a SIGTERM to npm left the service and its
 * PostgreSQL running). A second start on the busy data directory says so in one line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../src/db/embedded.ts';
import { alive } from '../../../src/db/embedded-leftover.ts';
import { eventually } from '../../support/eventually.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const test = suite('npm start: a signal to npm stops the service and its PostgreSQL; a busy data directory');

/** The environment of a service on the embedded database under `dataDir`, whatever the test run's holds. */
const serviceEnv = (dataDir: string, port: number): NodeJS.ProcessEnv => ({
  ...process.env,
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  EVENTSTORE_URL: '',
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
});

/** `npm start`, as a user types it: npm's own CLI when the tests run under npm, else `npm` on the PATH. */
function npmStart(env: NodeJS.ProcessEnv): ChildProcess {
  const npm = process.env.npm_execpath;
  const [file, args] = npm?.endsWith('.js') ? [process.execPath, [npm, 'start']] : ['npm', ['start']];
  return spawn(file, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

function collect(child: ChildProcess): { output: () => string; exited: Promise<number | null> } {
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { output: () => output, exited };
}

/** Every process under `pid` (from /proc), so that none is left behind should the service outlive npm. */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (stat && Number.isInteger(ppid)) parents.set(Number(entry), ppid);
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    const next = [...parents].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...next);
    frontier = next;
  }
  return found;
}

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (res) => res.status,
    () => undefined,
  );

test('kill <pid of npm start>: the service drains and exits, its PostgreSQL stops; a second start on the data directory says it is busy', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stk-npm-start-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const npm = npmStart(serviceEnv(dataDir, port));
  const started = collect(npm);
  let postgresPid: number | undefined;
  let underNpm: number[] = [];
  try {
    await eventually(
      'npm start to serve /readyz',
      async () => {
        if (npm.exitCode !== null)
          throw new Error(`npm start exited (${npm.exitCode}):\n${started.output()}`);
        return (await answers(`${url}/readyz`)) === 200;
      },
      180_000,
      200,
    );
    postgresPid = Number((await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    assert.ok(alive(postgresPid), 'the embedded PostgreSQL runs');

    // Another service on the same data directory: one line saying so and what to do, no stack trace.
    const second = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
      cwd: ROOT,
      env: serviceEnv(dataDir, await freePort()),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const refused = collect(second);
    assert.is(await refused.exited, 1, refused.output());
    const lines = refused.output().trim().split('\n');
    assert.is(lines.length, 1, refused.output());
    assert.match(
      lines[0]!,
      `Cannot start: the data directory ${dataDir} is in use by another running service`,
    );
    assert.match(lines[0]!, /Stop it \(kill \d+\), or start this one with another DATA_DIR\./);
    assert.not.match(refused.output(), /^\s+at /m);
    assert.is(await answers(`${url}/healthz`), 200, 'the first service is untouched');

    underNpm = await descendants(npm.pid!);
    npm.kill('SIGTERM');
    assert.is(await started.exited, 0, started.output());
    assert.is(await answers(`${url}/healthz`), undefined, 'nothing answers on the port any more');
    const pid = postgresPid;
    await eventually('the embedded PostgreSQL to stop', () => !alive(pid), 15_000, 50);
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
    // What outlived npm (the service, before the fix): stopped, not left running on the machine.
    for (const pid of underNpm) if (alive(pid) && pid !== postgresPid) process.kill(pid, 'SIGTERM');
    if (postgresPid && alive(postgresPid)) process.kill(postgresPid, 'SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.run();
