import type { ServerResponse } from 'node:http';
import { suite, type Test } from 'uvu';
import { type AddressPolicy, OutboundClient, type OutboundClientOptions } from '../../src/net/index.ts';
import { type LoopbackServer, sendJson, startLoopbackServer } from './loopback-http.ts';

/*
 * The outbound HTTP client (src/net/) against real loopback servers: `server` answers as the test's
 * `route` says (a 200 unless a test sets one), `other` is a second origin that always answers 200.
 */
export interface Context {
  server: LoopbackServer;
  other: LoopbackServer;
  sleeps: number[];
  route: (path: string, res: ServerResponse, index: number) => void;
}

const OPEN: AddressPolicy = { allowPrivateNetwork: true };

/** A suite whose every test has both servers, with nothing received yet and no sleeps recorded. */
export function outboundClientSuite(name: string): Test<Context> {
  const test = suite<Context>(name);
  test.before(async (context) => {
    context.server = await startLoopbackServer((req, res, index) => context.route(req.url, res, index));
    context.other = await startLoopbackServer((_req, res) => sendJson(res, 200, { other: true }));
  });
  test.after(async ({ server, other }) => {
    await server.close();
    await other.close();
  });
  test.before.each((context) => {
    context.server.received.length = 0;
    context.other.received.length = 0;
    context.sleeps = [];
    context.route = (_path, res) => sendJson(res, 200, { hello: 'world' });
  });
  return test;
}

/** A client whose backoff waits are recorded instead of slept, with a rate limit tests never reach. */
export const clientOf = (context: Context, options: Partial<OutboundClientOptions> = {}) =>
  new OutboundClient({
    policy: OPEN,
    rateLimit: { perSecond: 1_000_000 },
    retry: {
      random: () => 0.5,
      sleep: async (ms) => {
        context.sleeps.push(ms);
      },
    },
    ...options,
  });
