import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface LoopbackServer {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

export type Handler = (req: Received, res: ServerResponse, index: number) => void | Promise<void>;

/**
 * A real HTTP server on a loopback port: outbound clients are tested over sockets, against what a
 * server does (statuses, redirects, slow or huge bodies), with every request it received recorded.
 */
export async function startLoopbackServer(handler: Handler, host = '127.0.0.1'): Promise<LoopbackServer> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    received.push(entry);
    try {
      await handler(entry, res, received.length - 1);
    } catch (error) {
      res.destroy(error as Error);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
