import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { apiKeysProjection } from '../../projections/accounts/api-keys.ts';
import { organizationsProjection } from '../../projections/accounts/organizations.ts';
import { usersProjection } from '../../projections/accounts/users.ts';
import {
  keyMetadataFromLog,
  organizationFromLog,
  userDataFromLog,
} from '../../services/accounts/log-views.ts';
import { keyMetadataSchema, organizationSchema, userDataSchema } from '../../services/accounts/views.ts';
import { withEmailLock } from '../../src/auth/account-locks.ts';
import { newKeyId } from '../../src/auth/keys.ts';
import { hashPassword, verifyPassword } from '../../src/auth/password.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import {
  type BootstrapAttempt,
  emailReservationStream,
  organizationStream,
  takeoverAllowed,
  userStream,
} from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata } from '../../src/event-store/port.ts';
import { readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import {
  type AttemptRef,
  completeBootstrap,
  createOrganization,
  registerUser,
  reserveEmail,
  undoAttempt,
  unfinishedElsewhere,
} from './bootstrap-attempt.ts';
import { issueApiKey, sendCreatedKey } from './issue-api-key.ts';
import { publicRateLimited } from './public-rate-limit.ts';

const optionalName = z.string().trim().max(100).optional();

export const bootstrapBody = z
  .object({
    first_name: optionalName,
    last_name: optionalName,
    email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
    password: z.string().min(12).max(1024),
    organization_name: z.string().trim().min(1).max(200),
    key_name: z.string().trim().min(1).max(100).default('default'),
  })
  .strict();

export const bootstrapResult = z.object({
  apiKey: z.string(),
  userData: userDataSchema,
  keyMetadata: keyMetadataSchema,
  credits: z.object({
    organization: organizationSchema,
    // Credits are held by the organization; a user's snapshot says what that user has spent of them.
    user: z.object({ id: z.string(), creditsUsed: z.number() }),
  }),
});

const PROJECTIONS = [apiKeysProjection, organizationsProjection, usersProjection];

type Body = z.infer<typeof bootstrapBody>;

/** The points between the steps of a bootstrap, in order. */
export const BOOTSTRAP_STEPS = ['reserved', 'organization', 'user', 'key'] as const;
export type BootstrapStep = (typeof BOOTSTRAP_STEPS)[number];

/** Called after each step; the test-only pause below is one. */
export type StepHook = (step: BootstrapStep) => Promise<void>;

const noHook: StepHook = async () => {};

/**
 * TEST ONLY, never set in production: with STK_TEST_BOOTSTRAP_PAUSE_AFTER=<step> (one of
 * BOOTSTRAP_STEPS), every bootstrap stops for good after that step, holding what it has written, so
 * that an end-to-end test can kill the process exactly there (test/e2e/reliability/process-faults/bootstrap.test.ts).
 * Read from the environment rather than the configuration so that it appears in no setting a user sees.
 */
export function testPauseHook(deps: Pick<ServiceDeps, 'logger'>, env = process.env): StepHook {
  const step = env.STK_TEST_BOOTSTRAP_PAUSE_AFTER;
  if (!step) return noHook;
  if (!BOOTSTRAP_STEPS.includes(step as BootstrapStep))
    throw new Error(`STK_TEST_BOOTSTRAP_PAUSE_AFTER: expected one of ${BOOTSTRAP_STEPS.join(', ')}`);
  deps.logger.warn({ step }, 'test hook: every bootstrap pauses after this step');
  return async (reached) => {
    if (reached !== step) return;
    deps.logger.warn({ step }, 'test hook: bootstrap paused');
    await new Promise(() => {});
  };
}

/**
 * Frees the address of an unfinished bootstrap, when this one may take it over: the same password
 * (its owner retrying), or another once the grace period has passed. Only called under the address's
 * lock, so no process is still working on the attempt found.
 */
async function takeOverUnfinished(deps: ServiceDeps, input: Body, metadata: EventMetadata, now: Date) {
  const { state } = await loadState(
    deps.store,
    emailReservationStream.name(input.email),
    emailReservationStream,
  );
  // A free address is reserved next; a taken one is refused there.
  if (state.status !== 'pending') return;
  const samePassword = await verifyPassword(input.password, state.attempt.passwordHash);
  if (!takeoverAllowed(state.attempt, samePassword, now)) throw unfinishedElsewhere();
  await undoAttempt(deps, { email: input.email, ...state.attempt }, 'taken_over', metadata);
}

/** The writes of one attempt after its reservation, the completion last; the caller undoes them on failure. */
async function writeAttempt(
  deps: ServiceDeps,
  input: Body,
  attempt: BootstrapAttempt,
  context: { metadata: EventMetadata; now: Date; hook: StepHook },
) {
  const { metadata, hook } = context;
  const { organizationId, userId, keyId } = attempt;
  const common = { store: deps.store, metadata, now: context.now };
  await hook('reserved');
  await handleCommand({
    ...common,
    stream: organizationStream.name(organizationId),
    decider: createOrganization,
    command: { organizationId, name: input.organization_name, createdBy: userId },
  });
  await hook('organization');
  await handleCommand({
    ...common,
    stream: userStream.name(userId),
    decider: registerUser,
    command: {
      userId,
      organizationId,
      email: input.email,
      firstName: input.first_name || null,
      lastName: input.last_name || null,
      passwordHash: attempt.passwordHash,
    },
  });
  await hook('user');
  const key = await issueApiKey(deps, {
    organizationId,
    userId,
    keyId,
    name: input.key_name,
    scopes: [...SCOPES],
    metadata,
  });
  await hook('key');
  await handleCommand({
    ...common,
    stream: emailReservationStream.name(input.email),
    decider: completeBootstrap,
    command: { email: input.email, userId, organizationId, keyId },
  });
  return key;
}

/**
 * One call creates a user, an organization with its starter credits, and a key holding every scope.
 *
 * The address is reserved first, on its own stream, naming the ids of everything the bootstrap will
 * create; then the organization, user and key are written (new ids, so they cannot conflict); last,
 * the reservation is marked completed. A bootstrap that fails on the way undoes what it wrote
 * (bootstrap-attempt.ts); one whose process died is undone by the next bootstrap of the address, at
 * once when it proves the same password, by anyone after the grace period. Under the address's lock,
 * held for the whole call in every process, an attempt found unfinished is one nobody works on.
 */
export async function bootstrapAccount(
  deps: ServiceDeps,
  input: Body,
  correlationId: string,
  hook: StepHook = noHook,
) {
  // Hashing first keeps the lock, and the window between the reservation and the other writes, short.
  const passwordHash = await hashPassword(input.password);
  const metadata: EventMetadata = { correlationId, actor: 'system:bootstrap' };
  const inProgress = () =>
    new AppError('email_taken', 'A sign-up with this email address is in progress; retry in a moment.');
  const { key, attempt } = await withEmailLock(deps.pool, input.email, inProgress, async () => {
    const now = deps.clock();
    const attempt: BootstrapAttempt = {
      userId: randomUUID(),
      organizationId: randomUUID(),
      keyId: newKeyId(),
      passwordHash,
      reservedAt: now.toISOString(),
    };
    await takeOverUnfinished(deps, input, metadata, now);
    await handleCommand({
      store: deps.store,
      stream: emailReservationStream.name(input.email),
      decider: reserveEmail,
      command: { email: input.email, ...attempt },
      metadata,
      now,
    });
    try {
      return { key: await writeAttempt(deps, input, attempt, { metadata, now, hook }), attempt };
    } catch (error) {
      const ref: AttemptRef = { email: input.email, ...attempt };
      const undone = await undoAttempt(deps, ref, 'failed', metadata).catch((undoError: unknown) => {
        // The reservation stays pending: the next bootstrap of the address undoes the attempt.
        deps.logger.error({ err: undoError }, 'undoing a failed bootstrap failed');
        return 'failed to undo';
      });
      deps.logger.warn({ err: error, undone }, 'bootstrap failed');
      throw error;
    }
  });
  // The key's append is the last one a read model shows, so once it is projected everything is. The
  // answer comes from the log: the read models may lag, and a 500 here would lose the key's secret.
  await readYourWrites(deps, key.position, PROJECTIONS);
  const { organizationId, userId } = attempt;
  const [keyMetadata, user, organization] = await Promise.all([
    keyMetadataFromLog(deps.store, key.keyId),
    userDataFromLog(deps.store, userId),
    organizationFromLog(deps.store, organizationId),
  ]);
  return {
    keyId: key.keyId,
    answer: {
      apiKey: key.apiKey,
      userData: user,
      keyMetadata,
      credits: { organization, user: { id: userId, creditsUsed: 0 } },
    },
  };
}

/**
 * POST /api/auth/agent-bootstrap (public), rate limited per client address. The answer carries the
 * key's secret: `Location` names the key, and no cache may keep it.
 */
export const bootstrapAccountRoute: RouteModule = async (root, deps) => {
  const hook = testPauseHook(deps);
  await publicRateLimited(root, 'bootstrap', (app) => {
    app.post(
      '/api/auth/agent-bootstrap',
      {
        config: {
          access: 'public',
          rateLimit: { max: deps.config.BOOTSTRAP_RATE_LIMIT, timeWindow: 60_000 },
        },
        schema: {
          operationId: 'bootstrapAccount',
          tags: ['accounts'],
          summary: 'Create a user, an organization and an API key (the key is returned once)',
          body: bootstrapBody,
          response: { 201: bootstrapResult },
          responseHeaders: { 201: ['Cache-Control'] },
        },
      },
      async (request, reply) => {
        const { keyId, answer } = await bootstrapAccount(deps, request.body, request.id, hook);
        return sendCreatedKey(reply, keyId, answer);
      },
    );
  });
};
