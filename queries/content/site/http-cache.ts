import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CONTENT_SECURITY_POLICY } from './layout.ts';

export const PUBLIC_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=600';

/**
 * A strong validator from anything that determines the bytes of the answer, as a digest. (A column's
 * ETag is its revision instead: src/domain/columns/etag.ts.)
 */
export function digestEtag(...parts: string[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part).update('\u0000');
  return `"${hash.digest('base64url')}"`;
}

function matchesEtag(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  // Weak comparison (RFC 9110 13.1.2): W/"x" matches "x".
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sets the validators and the cache policy, and answers 304 when the client's copy is current.
 * If-None-Match wins over If-Modified-Since, as RFC 9110 says.
 */
export function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: { etag: string; lastModified?: Date },
): boolean {
  reply.header('cache-control', PUBLIC_CACHE_CONTROL).header('etag', validators.etag);
  if (validators.lastModified) reply.header('last-modified', validators.lastModified.toUTCString());
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesEtag(ifNoneMatch, validators.etag);
  const ifModifiedSince = request.headers['if-modified-since'];
  if (ifModifiedSince === undefined || !validators.lastModified) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(validators.lastModified.getTime() / 1000) * 1000 <= since;
}

/** The headers every public HTML page carries. */
export function htmlHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'strict-origin-when-cross-origin');
}

/** The headers a page, its 304 and a not-found page carry, as /openapi.json declares them. */
export const PAGE_HEADERS = {
  200: ['Cache-Control', 'ETag', 'Last-Modified'],
  304: ['Cache-Control', 'ETag', 'Last-Modified'],
  404: ['Cache-Control'],
} as const;

/**
 * How a public page is documented in /openapi.json: the page in its own media type, a 304 without
 * a body for a copy still current, and (`notFoundPage`) a 404 page a reader can follow back from.
 */
export function pageResponses(mediaType: string, options: { notFoundPage?: boolean } = {}) {
  const html = { 'text/html': { schema: z.string() } };
  return {
    200: { description: `The page (${mediaType})`, content: { [mediaType]: { schema: z.string() } } },
    304: { description: 'Not modified: the copy the client holds is current', content: {} },
    ...(options.notFoundPage
      ? { 404: { description: 'No such page: a page to follow back from', content: html } }
      : {}),
  };
}
