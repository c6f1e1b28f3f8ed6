import { z } from 'zod';
import { verifyNoPassword, verifyPassword } from '../../src/auth/password.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { emailReservationStream, loginStream, userStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { issuedKeySchema, issueKeyAnswer, sendCreatedKey } from './issue-api-key.ts';
import { publicRateLimited } from './public-rate-limit.ts';

/**
 * How often a login may be tried: per client address (any email), and per account (any address),
 * so that neither one address trying many passwords nor many addresses trying one account get far.
 * Both are counted in each process's memory: with N processes behind a balancer, up to N times these.
 * The per-account count applies to every email alike, accounts or not, so a 429 tells nobody whether
 * an address has an account; it also means anyone can hold an account's logins back for a window.
 */
export const LOGIN_LIMITS = {
  perAddress: { max: 10, timeWindow: 60_000 },
  perAccount: { max: 10, timeWindow: 15 * 60_000 },
} as const;

export const loginBody = z
  .object({
    email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
    // Any length: a wrong password is a 401 like any other, never a 400 that says something.
    password: z.string().min(1).max(1024),
    key_name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length).optional(),
  })
  .strict();

type Body = z.infer<typeof loginBody>;

/** The owner of a finished account with this address, with what a login needs; else undefined. */
async function ownerOf(deps: ServiceDeps, email: string) {
  const { state } = await loadState(deps.store, emailReservationStream.name(email), emailReservationStream);
  if (state.status !== 'completed') return undefined;
  const { state: user } = await loadState(deps.store, userStream.name(state.userId), userStream);
  if (user.status !== 'registered') return undefined;
  return { userId: state.userId, organizationId: user.organizationId, passwordHash: user.passwordHash };
}

/**
 * A wrong email and a wrong password get the same answer, after the same work: an unknown address is
 * checked against a hash nobody knows the password of (verifyNoPassword).
 */
const wrongCredentials = () =>
  new AppError('invalid_credentials', 'The email address or the password is wrong.');

/**
 * Issues a new key to the account's owner. Audited: the key's ApiKeyIssued names `login:<userId>` as
 * its actor; a wrong password for an account is recorded as LoginFailed on the user's login stream,
 * without anything of what was typed (an unknown address leaves no trace: it names nobody).
 */
export async function login(deps: ServiceDeps, input: Body, correlationId: string) {
  const owner = await ownerOf(deps, input.email);
  const matches = owner
    ? await verifyPassword(input.password, owner.passwordHash)
    : await verifyNoPassword(input.password);
  if (!owner || !matches) {
    if (owner) {
      // An audit record, not a decision: nothing is read back before it is appended.
      await deps.store
        .append(
          loginStream.name(owner.userId),
          [{ type: 'LoginFailed', data: { userId: owner.userId }, metadata: { correlationId } }],
          { expectedRevision: 'any' },
        )
        .catch((error: unknown) => deps.logger.error({ err: error }, 'recording a failed login failed'));
    }
    throw wrongCredentials();
  }
  return issueKeyAnswer(deps, {
    organizationId: owner.organizationId,
    userId: owner.userId,
    name: input.key_name,
    scopes: input.scopes ?? [...SCOPES],
    metadata: { correlationId, actor: `login:${owner.userId}` },
  });
}

/**
 * POST /api/auth/login (public): a new key for the owner of an account, with every scope or the ones
 * asked for. Rate limited per client address (before anything is read) and per account (after the
 * body is validated, before the password is checked).
 */
export const loginRoute: RouteModule = async (root, deps) => {
  await publicRateLimited(root, 'login', (app, scoped) => {
    const perAccount = scoped.createRateLimit({
      ...LOGIN_LIMITS.perAccount,
      keyGenerator: (request) => `login-account:${(request.body as Body).email}`,
    });
    app.post(
      '/api/auth/login',
      {
        config: { access: 'public', rateLimit: LOGIN_LIMITS.perAddress },
        schema: {
          operationId: 'loginWithPassword',
          tags: ['accounts'],
          summary: "Issue a new API key to the account's owner, for the email and password",
          body: loginBody,
          response: { 201: issuedKeySchema },
          responseHeaders: { 201: ['Cache-Control'] },
        },
        preHandler: async (request) => {
          const limit = await perAccount(request);
          if (!limit.isAllowed && limit.isExceeded) {
            throw new AppError(
              'rate_limited',
              `Too many login attempts for this account; retry in ${limit.ttlInSeconds} s.`,
              { headers: { 'retry-after': String(limit.ttlInSeconds) } },
            );
          }
        },
      },
      async (request, reply) => {
        const answer = await login(deps, request.body, request.id);
        return sendCreatedKey(reply, answer.keyMetadata.id, answer);
      },
    );
  });
  // The hash an unknown address is checked against is made now, not by the first such login.
  await verifyNoPassword('');
};
