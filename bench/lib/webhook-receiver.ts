import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback receiver for bench/webhooks.ts answering 200 at once, calling `onMessage` with each body
 * (and the time it arrived, Date.now()) once it is read. Its URL ends in /hook.
 */
export async function startReceiver(
  onMessage: (body: string, at: number) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      onMessage(Buffer.concat(chunks).toString('utf8'), Date.now());
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}
