import { randomBytes } from 'node:crypto';
import { accountsFeature } from '../../app/features/accounts.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import {
  type ApiKeyState,
  apiKeyStream,
  emailReservationStream,
  type OrganizationState,
  organizationStream,
  type UserState,
  userStream,
} from '../../src/domain/accounts/streams.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import type { ZodApp } from '../../src/http/routes.ts';

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

/** One bootstrap attempt of an address, as its streams in the log tell it. */
export interface AttemptView {
  /** Its reservation of the address was marked completed. */
  completed: boolean;
  userId: string;
  organizationId: string;
  keyId: string;
  organization: OrganizationState;
  user: UserState['status'];
  key: ApiKeyState['status'];
}

/** Every bootstrap attempt ever made for `email`, oldest first, read from the log. */
export async function bootstrapAttempts(store: EventStore, email: string): Promise<AttemptView[]> {
  const events = await store.readStream(emailReservationStream.name(email));
  const reserved = events.filter((e) => e.type === 'EmailReserved');
  const completed = new Set(
    events.filter((e) => e.type === 'BootstrapCompleted').map((e) => (e.data as { userId: string }).userId),
  );
  return Promise.all(
    reserved.map(async (event) => {
      const { userId, organizationId, keyId } = event.data as Record<
        'userId' | 'organizationId' | 'keyId',
        string
      >;
      const [organization, user, key] = await Promise.all([
        loadState(store, organizationStream.name(organizationId), organizationStream),
        loadState(store, userStream.name(userId), userStream),
        loadState(store, apiKeyStream.name(keyId), apiKeyStream),
      ]);
      return {
        completed: completed.has(userId),
        userId,
        organizationId,
        keyId,
        organization: organization.state,
        user: user.state.status,
        key: key.state.status,
      };
    }),
  );
}

/** An account someone can use: completed, its organization with its credits, its user, its key. */
export const usable = (a: AttemptView) =>
  a.completed &&
  a.organization.exists &&
  !a.organization.abandoned &&
  a.user === 'registered' &&
  a.key === 'active';

/** An attempt undone to the end: nothing of it usable, and its credits withdrawn. */
export const undone = (a: AttemptView) =>
  !a.completed &&
  a.organization.abandoned &&
  a.organization.balance === 0 &&
  a.user === 'abandoned' &&
  a.key === 'revoked';
