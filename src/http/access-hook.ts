import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header or none. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/** The raw key of a request, from `Authorization: Bearer` or `X-API-Key`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) return bearerToken(header) ?? '';
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}

const unauthorized = (detail: string) =>
  new AppError('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="api"' } });

/** The principal of an authenticated route; only call from routes that are not public. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf called on a route without authentication');
  return request.principal;
}

/**
 * One hook enforces every route's declared access. Registration fails for a route that declares
 * none, so a forgotten scope cannot ship.
 */
export function installAccessControl(app: FastifyInstance, authenticate: Authenticator | undefined): void {
  app.addHook('onRoute', (route) => {
    const access = (route.config as { access?: string } | undefined)?.access;
    if (!access)
      throw new Error(`Route ${route.method} ${route.url} declares no access (a scope or 'public')`);
    if (!route.schema) return;
    // The OpenAPI document says what each route needs: no key, or the key and which scope.
    const description = route.schema.description ? `${route.schema.description}\n\n` : '';
    if (access === 'public') {
      // `security: []` (src/http/openapi.ts), unless the route names a secret of its own it may take.
      route.schema = { ...route.schema, description: `${description}Public: no API key is needed.` };
      return;
    }
    const needs = access === 'authenticated' ? 'any valid API key' : `the scope \`${access}\``;
    route.schema = {
      ...route.schema,
      security: [{ bearer: [] }, { apiKey: [] }],
      description: `${description}Requires ${needs}.`,
    };
  });
  // onRequest, before the body is parsed and validated: a caller without a valid key learns nothing
  // about the route's input (401/403 come before any 400), and an unauthenticated body is never read.
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') return;
    const raw = presentedKey(request);
    if (raw === undefined)
      throw unauthorized('Send an API key as "Authorization: Bearer <key>" or "X-API-Key".');
    const principal = raw && authenticate ? await authenticate(raw) : undefined;
    if (!principal) throw unauthorized('The API key is malformed, unknown or revoked.');
    request.principal = principal;
    if (access !== 'authenticated' && !principal.scopes.has(access)) {
      throw new AppError('missing_scope', `This operation requires the scope ${access}.`, { scope: access });
    }
  });
}
