import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cookieValue, type OperatorSession, SESSION_COOKIE, sameToken } from '../auth/operators.ts';
import type { Authenticator, Principal } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';

/** The live operator session a console cookie names (src/auth/operators.ts), or undefined. */
export type OperatorAuthenticator = (token: string) => Promise<OperatorSession | undefined>;

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

const signedOut = () =>
  new AppError('unauthorized', 'Sign in to the operator console at /admin/sign-in.', {
    headers: { 'WWW-Authenticate': 'Cookie realm="admin", form-action="/admin/sign-in"' },
  });

/** Methods that change nothing: every other one on an operator route must carry the session's CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The CSRF token a request sends: the `X-CSRF-Token` header, or a form's `_csrf` field. */
function presentedCsrf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const field = (request.body as { _csrf?: unknown } | undefined)?._csrf;
  return typeof field === 'string' ? field : undefined;
}

/**
 * The operator's session, from the console's cookie only: an API key (Authorization, X-API-Key)
 * opens nothing here, and the cookie opens nothing but operator routes.
 */
async function requireOperator(request: FastifyRequest, authenticate: OperatorAuthenticator | undefined) {
  const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
  const session = token && authenticate ? await authenticate(token) : undefined;
  if (!session) throw signedOut();
  request.operator = session;
}

/**
 * One hook enforces every route's declared access. Registration fails for a route that declares
 * none, so a forgotten scope cannot ship.
 */
export function installAccessControl(
  app: FastifyInstance,
  authenticate: Authenticator | undefined,
  authenticateOperator?: OperatorAuthenticator,
): void {
  app.addHook('onRoute', (route) => {
    const access = (route.config as { access?: string } | undefined)?.access;
    if (!access)
      throw new Error(`Route ${route.method} ${route.url} declares no access (a scope or 'public')`);
    if (!route.schema || access === 'operator') return;
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
    if (access === 'operator') return requireOperator(request, authenticateOperator);
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
  // A state-changing request of a signed-in operator must send back the session's CSRF token (a
  // synchronizer token: a page of the console carries it, another site cannot read it). Checked once
  // the body is parsed (a form sends it as a field), before the body is validated.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.access !== 'operator' || SAFE_METHODS.has(request.method)) return;
    const presented = presentedCsrf(request);
    if (!request.operator || presented === undefined || !sameToken(presented, request.operator.csrfToken))
      throw new AppError('forbidden', 'The CSRF token is missing or wrong: reload the page and try again.');
  });
}
