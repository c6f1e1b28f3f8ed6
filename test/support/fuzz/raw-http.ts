import { connect } from 'node:net';

/**
 * One HTTP/1.1 exchange over its own loopback socket, written byte by byte: fetch and node:http refuse
 * to send what a fuzzer must send (a NUL in a header value, a lone surrogate in a path, a body that
 * disagrees with its content type), and the server's own parser has to see those bytes.
 */
export interface RawRequest {
  method: string;
  /** Already encoded: it is written as it is. */
  target: string;
  headers: [string, string][];
  /** 1.1 unless given. */
  version?: '1.0' | '1.1';
  /** The Host header: 127.0.0.1 when not given; null leaves it out. */
  host?: string | null;
  /** Latin-1 strings stand for raw bytes: each code unit below 256 is one byte. */
  body?: string;
  /** A JS string body is UTF-8 unless the case asks for raw bytes. */
  bodyEncoding?: 'utf8' | 'latin1';
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Chunked transfer coding, undone (the answers of streaming routes use it). */
function unchunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseAnswer(data: Buffer): RawAnswer | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!status) return undefined;
  const rest = data.subarray(headEnd + 4);
  // An interim answer (100 Continue) precedes the real one.
  if (status < 200) return parseAnswer(rest);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = /chunked/i.test(headers['transfer-encoding'] ?? '') ? unchunk(rest) : rest;
  return { status, headers, body: body.toString('utf8') };
}

/**
 * Sends `request` with `Connection: close` and reads the answer to the end. Resolves `undefined`
 * when the server closed the connection without an answer; rejects only past `guardMs`, a guard
 * against a hung server stalling the suite (not a measurement: the server's own timeout is 30 s).
 */
export function sendRaw(
  port: number,
  request: RawRequest,
  guardMs = 120_000,
): Promise<RawAnswer | undefined> {
  const body = request.body === undefined ? undefined : Buffer.from(request.body, request.bodyEncoding);
  const head = [
    `${request.method} ${request.target} HTTP/${request.version ?? '1.1'}`,
    ...(request.host === null ? [] : [`Host: ${request.host ?? '127.0.0.1'}`]),
    'Connection: close',
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    ...(body ? [`Content-Length: ${body.length}`] : []),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${guardMs} ms`));
    }, guardMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may answer (413, 431) and hang up before it read the whole request: writing then
    // fails with EPIPE or ECONNRESET, and what it answered is still in `chunks`.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(parseAnswer(Buffer.concat(chunks)));
    });
    // Header values are bytes on the wire: latin1 keeps a NUL a NUL, and non-Latin-1 text goes as UTF-8.
    const headBytes = [...head].every((c) => c.charCodeAt(0) <= 0xff)
      ? Buffer.from(head, 'latin1')
      : Buffer.from(head, 'utf8');
    socket.write(headBytes);
    if (body) socket.write(body);
  });
}
