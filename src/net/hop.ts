import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { type Agent, request } from 'undici';
import { type AddressPolicy, checkAddressOnce } from './address-guard.ts';
import type { HostRateLimit } from './host-rate-limit.ts';

/** An answer as the outbound client hands it over (outbound.ts). */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  /** The URL that answered, after redirects. */
  url: string;
}

export type OutboundErrorCode =
  | 'invalid_url'
  | 'invalid_request'
  | 'target_not_allowed'
  | 'timeout'
  | 'connection_failed'
  | 'too_many_redirects'
  | 'cross_origin_redirect'
  | 'aborted';

/** One request on the way: the first, or one a redirect leads to. */
export interface Hop {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface HopContext {
  agent: Agent;
  policy: AddressPolicy;
  rateLimit: HostRateLimit;
  maxBytes: number;
  /** What is left of the attempt's time for this hop, counted once its rate-limit wait is over. */
  budgetMs: number;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  now(): number;
  /** Whether a response with this status is a redirect to follow. */
  redirect(status: number): boolean;
}

type HopError = { code: OutboundErrorCode; message: string; retryable: boolean };

/** `waitedMs`: for the host's rate limit; `activeMs`: on the network, against the time budget. */
export type HopOutcome = { waitedMs: number; activeMs: number } & (
  | { ok: true; response: OutboundResponse; location?: string }
  | { ok: false; error: HopError }
);

const fail = (
  code: OutboundErrorCode,
  message: string,
  retryable = false,
  waitedMs = 0,
  activeMs = 0,
): HopOutcome => ({
  ok: false,
  error: { code, message, retryable },
  waitedMs,
  activeMs,
});

/**
 * Sends one request without following anything. A literal IP host is checked here (connecting to it
 * skips DNS, so the guarded lookup never sees it); a host name is checked by the agent's lookup.
 * Messages name the host only: the path and query of a user's URL may carry a secret.
 */
export async function hop(step: Hop, ctx: HopContext): Promise<HopOutcome> {
  const url = parsedUrl(step.url);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return fail('invalid_url', 'the URL is not an absolute http(s) URL');
  }
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal)) {
    const verdict = checkAddressOnce(literal, ctx.policy);
    if (!verdict.ok) return fail('target_not_allowed', `refused target: ${verdict.reason}`);
  }
  let waitedMs = 0;
  try {
    waitedMs = await ctx.rateLimit.take(url.host, ctx.signal);
  } catch {
    return fail('aborted', 'the request was cancelled');
  }
  const started = ctx.now();
  // One controller and one timer per hop: AbortSignal.timeout and AbortSignal.any cost a weak
  // reference and a registry entry each, a measurable part of a webhook delivery's CPU.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort(new DOMException('the time budget ran out', 'TimeoutError'));
    },
    Math.max(1, Math.ceil(ctx.budgetMs)),
  );
  timer.unref();
  const onAbort = () => controller.abort(ctx.signal?.reason);
  if (ctx.signal?.aborted) onAbort();
  else ctx.signal?.addEventListener('abort', onAbort, { once: true });
  const { signal } = controller;
  const activeMs = () => ctx.now() - started;
  try {
    const res = await request(url, {
      method: step.method as 'GET',
      headers: step.headers,
      body: step.body,
      dispatcher: ctx.agent,
      signal,
    });
    const headers = flatten(res.headers);
    const base = { status: res.statusCode, headers, url: url.href };
    if (ctx.redirect(res.statusCode) && headers.location) {
      await res.body.dump({ limit: 64 * 1024, signal });
      const response = { ...base, body: Buffer.alloc(0), truncated: false };
      return { ok: true, response, location: headers.location, waitedMs, activeMs: activeMs() };
    }
    const { body, truncated } = await readCapped(res.body, ctx.maxBytes);
    return { ok: true, response: { ...base, body, truncated }, waitedMs, activeMs: activeMs() };
  } catch (error) {
    const { code, message, retryable } = classify(
      error,
      signal.aborted,
      timedOut && !ctx.signal?.aborted,
      url.host,
    );
    return fail(code, message, retryable, waitedMs, activeMs());
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onAbort);
  }
}

/** The URL, or undefined when it is not one (parsed once: canParse and then new URL is twice). */
function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** At most `maxBytes` of the body; the rest is not read (the connection is dropped instead). */
export async function readCapped(
  body: Readable,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function codeOf(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR_CONNECT') return code;
  }
  return (error as { code?: string } | undefined)?.code;
}

function classify(error: unknown, aborted: boolean, timedOut: boolean, host: string): HopError {
  for (let e = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === 'ERR_TARGET_NOT_ALLOWED') {
      return { code: 'target_not_allowed', message: e.message, retryable: false };
    }
  }
  if (aborted) {
    return timedOut
      ? { code: 'timeout', message: `${host} did not answer in time`, retryable: false }
      : { code: 'aborted', message: 'the request was cancelled', retryable: false };
  }
  const code = codeOf(error);
  if (code === 'UND_ERR_INVALID_ARG') {
    const detail = error instanceof Error ? error.message : String(error);
    return { code: 'invalid_request', message: `the request is not valid HTTP: ${detail}`, retryable: false };
  }
  // A name that does not exist will not exist a second later; a refused or reset connection may recover.
  if (code === 'ENOTFOUND')
    return { code: 'connection_failed', message: `${host} does not resolve`, retryable: false };
  return {
    code: 'connection_failed',
    message: `connection to ${host} failed (${code ?? 'error'})`,
    retryable: true,
  };
}
