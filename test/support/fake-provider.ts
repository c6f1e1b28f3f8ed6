import type { ServerResponse } from 'node:http';
import { type LoopbackServer, type Received, sendJson, startLoopbackServer } from './loopback-http.ts';

/**
 * A scripted trouble for the next request a fake provider receives: a status with the provider's own
 * error body, a body that is not JSON, or no answer at all (a hang, for timeouts).
 */
export type Trouble =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { malformed: true }
  | { hang: true };

export interface FakeProvider {
  url: string;
  server: LoopbackServer;
  /** Troubles answered to the next requests, in order, before the normal answers resume. */
  troubles: Trouble[];
  /** Requests received whose path starts with `prefix` (all of them without). */
  requests(prefix?: string): Received[];
  close(): Promise<void>;
}

/**
 * A loopback server of a provider's API: `check` answers an authentication failure in the provider's
 * own format (or nothing when the request passes), scripted troubles come next, then `answer`.
 */
export async function startFakeProvider(
  check: (req: Received, res: ServerResponse) => boolean,
  answer: (req: Received, res: ServerResponse, url: URL) => void,
): Promise<FakeProvider> {
  const hung: ServerResponse[] = [];
  const fake = { troubles: [] as Trouble[] } as FakeProvider;
  fake.server = await startLoopbackServer((req, res) => {
    if (!check(req, res)) return;
    const trouble = fake.troubles.shift();
    if (trouble && 'hang' in trouble) {
      hung.push(res);
      return;
    }
    if (trouble && 'malformed' in trouble) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"results": [');
      return;
    }
    if (trouble) return sendJson(res, trouble.status, trouble.body ?? {}, trouble.headers);
    answer(req, res, new URL(req.url, 'http://fake'));
  });
  fake.url = fake.server.url;
  fake.requests = (prefix = '') => fake.server.received.filter((r) => r.url.startsWith(prefix));
  fake.close = async () => {
    for (const res of hung) res.destroy();
    await fake.server.close();
  };
  return fake;
}
