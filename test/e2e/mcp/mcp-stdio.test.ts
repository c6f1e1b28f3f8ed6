import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { runStk } from '../../support/cli.ts';
import { connectStdio, mcpSuite } from '../../support/mcp.ts';

/**
 * Issue 35 over stdio: `stk mcp` spawned as an agent host spawns it, talking to the running service
 * over HTTP with its key; the SDK's client on the other end of its stdin and stdout.
 */
/** A config file that does not exist: no saved login is read. */
const NO_CONFIG = join(tmpdir(), 'stk-mcp-test-no-config.json');

const test = mcpSuite('mcp over stdio (stk mcp)', connectStdio);

test('a key the service refuses stops stk mcp at once, saying why on stderr and nothing on stdout', async (ctx) => {
  const run = await runStk(['mcp'], {
    env: { STK_BASE_URL: ctx.t.url, STK_API_KEY: 'stk_nope.nope', STK_CONFIG: NO_CONFIG },
    input: '',
  });
  assert.is(run.code, 1);
  assert.is(run.stdout, '');
  assert.match(run.stderr, 'stk mcp: the service refused the API key');
  const keyless = await runStk(['mcp'], {
    env: { STK_BASE_URL: ctx.t.url, STK_CONFIG: NO_CONFIG },
  });
  assert.is(keyless.code, 2);
  assert.match(keyless.stderr, 'no API key');
});

test.run();
