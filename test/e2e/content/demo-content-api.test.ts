/**
 * Issue 34, item 12: the content walk-through's fake upstream (`npm run demo:content-api`, docs/content-sync.md)
 * on a port already taken says which port and how to choose another, in one line, instead of a raw
 * EADDRINUSE stack; on a free port it serves.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../src/db/embedded.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const test = suite('npm run demo:content-api: a taken port named, with how to choose another');

/** The demo as its npm script starts it (tsx test/support/fake-content-api.ts), on `port`. */
function demo(port: number): { child: ChildProcess; out: () => string; err: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/fake-content-api.ts'], {
    cwd: ROOT,
    env: { ...process.env, FAKE_CONTENT_API_PORT: String(port), CONTENT_API_KEY: 'demo-content-key' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  return { child, out: () => out, err: () => err };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

test('a taken port: exit 1 and one line naming the port, FAKE_CONTENT_API_PORT and CONTENT_API_URL', async () => {
  const holder = createServer();
  const port = await new Promise<number>((resolve) =>
    holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
  );
  try {
    const run = demo(port);
    assert.is(await exited(run.child), 1, run.err());
    const lines = run.err().trim().split('\n');
    assert.is(lines.length, 1, run.err());
    assert.match(lines[0]!, `port ${port} on 127.0.0.1 is taken`);
    assert.match(lines[0]!, 'FAKE_CONTENT_API_PORT=4011 npm run demo:content-api');
    assert.match(lines[0]!, 'CONTENT_API_URL=http://127.0.0.1:4011');
    assert.not.match(run.err(), 'EADDRINUSE');
  } finally {
    holder.close();
  }
});

test('a free port: it serves the sample articles there', async () => {
  const port = await freePort();
  const run = demo(port);
  try {
    const deadline = Date.now() + 60_000;
    while (!run.out().includes('\n') && run.child.exitCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(run.out(), `fake content API on http://127.0.0.1:${port}`, run.err());
    const res = await fetch(`http://127.0.0.1:${port}/posts?kind=blog&limit=100&offset=0`, {
      headers: { authorization: 'Bearer demo-content-key' },
    });
    assert.is(res.status, 200);
  } finally {
    run.child.kill('SIGTERM');
    await exited(run.child);
  }
});

test.run();
