import { connectStdio, mcpSuite } from '../../support/mcp.ts';

/**
 * Issue 35 over stdio: `stk mcp` spawned as an agent host spawns it, talking to the running service
 * over HTTP with its key; the SDK's client on the other end of its stdin and stdout.
 */
const test = mcpSuite('mcp over stdio (stk mcp)', connectStdio);

test.run();
