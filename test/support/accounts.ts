import { randomBytes } from 'node:crypto';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { accountsFeature } from '../../src/domain/accounts/feature.ts';
import type { ZodApp } from '../../src/http/app.ts';

/**
 * Accounts for other features' tests. Start an app with them:
 *
 *   startTestApp({
 *     projections: [...accounts.projections, ...mine],
 *     routes: [...accounts.routes, ...mine],
 *     authenticator: accounts.authenticator,
 *   })
 *
 * then `const { apiKey } = await bootstrapAccount(app)` and `issueKey(app, apiKey, ['tables:read'])`.
 */
export const accounts = {
  projections: accountsFeature.projections,
  routes: [...accountsFeature.commands, ...accountsFeature.queries],
  authenticator: createAuthenticator,
};

/** A base URL (real socket, fetch) or an app (inject). */
export type Target = string | ZodApp | { app: ZodApp };

export interface Answer {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON that tests pick apart
  body: any;
}

/** JSON when the answer is JSON, else the text as it is (HTML pages, feeds). */
function parse(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One request against either kind of target; the body is parsed JSON when there is one. */
export async function call(
  target: Target,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (typeof target === 'string') {
    const res = await fetch(new URL(path, target), { method, headers, body: payload });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: parse(await res.text()) };
  }
  const app = 'app' in target ? target.app : target;
  const res = await app.inject({ method: method as 'GET', url: path, headers, payload });
  return {
    status: res.statusCode,
    headers: res.headers as Record<string, string>,
    body: parse(res.body),
  };
}

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** A distinct made-up client address, so that helpers never trip the bootstrap rate limit. */
export const someClientAddress = () => `10.${[...randomBytes(3)].join('.')}`;

export interface BootstrappedAccount {
  apiKey: string;
  keyId: string;
  organizationId: string;
  userId: string;
  email: string;
  password: string;
  /** The whole 201 answer. */
  // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON that tests pick apart
  body: any;
}

/** Creates a fresh account (unique email) and returns its all-scopes key. */
export async function bootstrapAccount(
  target: Target,
  overrides: Record<string, unknown> = {},
): Promise<BootstrappedAccount> {
  const email = `user-${randomBytes(6).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const res = await call(target, 'POST', '/api/auth/agent-bootstrap', {
    headers: { 'x-forwarded-for': someClientAddress() },
    body: { email, password, organization_name: 'Test organization', first_name: 'Test', ...overrides },
  });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    apiKey: res.body.apiKey,
    keyId: res.body.keyMetadata.id,
    organizationId: res.body.credits.organization.id,
    userId: res.body.userData.id,
    email: res.body.userData.email,
    password,
    body: res.body,
  };
}

/** Issues a key with exactly `scopes` using `apiKey` (which must hold them and keys:write). */
export async function issueKey(
  target: Target,
  apiKey: string,
  scopes: readonly Scope[],
  name = 'test key',
): Promise<{ apiKey: string; keyId: string }> {
  const res = await call(target, 'POST', '/api/keys', { headers: bearer(apiKey), body: { name, scopes } });
  if (res.status !== 201) throw new Error(`issuing a key failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { apiKey: res.body.apiKey, keyId: res.body.keyMetadata.id };
}
