import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hashPassword } from '../../src/auth/password.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { handleCommand } from '../../src/command.ts';
import {
  emailReservationDecider,
  organizationDecider,
  userDecider,
} from '../../src/domain/accounts/account-deciders.ts';
import {
  keyMetadata,
  keyMetadataSchema,
  organizationData,
  organizationSchema,
  readKey,
  readOrganization,
  readUser,
  userData,
  userDataSchema,
} from '../../src/domain/accounts/views.ts';
import { AppError } from '../../src/errors.ts';
import type { AppDeps, RouteModule } from '../../src/http/app.ts';
import { streams } from '../../src/streams.ts';
import { issueApiKey } from './issue-api-key.ts';

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

const PROJECTIONS = ['api_keys', 'organizations', 'users'];

type Body = z.infer<typeof bootstrapBody>;

/**
 * One call creates a user, an organization with its starter credits, and a key holding every scope.
 *
 * The email is reserved first, on its own stream appended with `no_stream`: of any number of
 * concurrent bootstraps for one address exactly one wins, and the others are refused before they
 * write anything else. Only then are the organization, user and key streams written (new ids, so
 * they cannot conflict).
 */
export async function bootstrapAccount(deps: AppDeps, input: Body, correlationId: string) {
  const organizationId = randomUUID();
  const userId = randomUUID();
  // Hashing first keeps the window between the reservation and the other writes short.
  const passwordHash = await hashPassword(input.password);
  const metadata = { correlationId, actor: 'system:bootstrap' };
  const now = deps.clock();
  const common = { store: deps.store, metadata, now };

  await handleCommand({
    ...common,
    stream: streams.emailReservation(input.email),
    decider: emailReservationDecider,
    command: { email: input.email, userId, organizationId },
  });
  await handleCommand({
    ...common,
    stream: streams.organization(organizationId),
    decider: organizationDecider,
    command: { organizationId, name: input.organization_name, createdBy: userId },
  });
  await handleCommand({
    ...common,
    stream: streams.user(userId),
    decider: userDecider,
    command: {
      userId,
      organizationId,
      email: input.email,
      firstName: input.first_name || null,
      lastName: input.last_name || null,
      passwordHash,
    },
  });
  const key = await issueApiKey(deps, {
    organizationId,
    userId,
    name: input.key_name,
    scopes: [...SCOPES],
    metadata,
  });
  // The key's append is the last of the four, so once it is projected everything is.
  await deps.projections.waitFor(key.position, PROJECTIONS);
  const [keyRow, user, organization] = await Promise.all([
    readKey(deps.pool, key.keyId),
    readUser(deps.pool, userId),
    readOrganization(deps.pool, organizationId),
  ]);
  if (!keyRow || !user || !organization)
    throw new AppError('internal', 'The new account is not readable yet.');
  return {
    apiKey: key.apiKey,
    userData: userData(user),
    keyMetadata: keyMetadata(keyRow),
    credits: { organization: organizationData(organization), user: { id: userId, creditsUsed: 0 } },
  };
}

/**
 * POST /api/auth/agent-bootstrap (public), rate limited per client address. The rate-limit plugin is
 * registered inside this module's own encapsulated context, so other features can register it too.
 */
export const bootstrapAccountRoute: RouteModule = async (root, deps) => {
  await root.register(async (scoped) => {
    await scoped.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `Too many bootstrap requests; retry in ${context.after}.`),
    });
    const app = scoped.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/api/auth/agent-bootstrap',
      {
        config: {
          access: 'public',
          rateLimit: { max: deps.config.BOOTSTRAP_RATE_LIMIT, timeWindow: 60_000 },
        },
        schema: {
          tags: ['accounts'],
          summary: 'Create a user, an organization and an API key (the key is returned once)',
          body: bootstrapBody,
          response: { 201: bootstrapResult },
        },
      },
      async (request, reply) => reply.code(201).send(await bootstrapAccount(deps, request.body, request.id)),
    );
  });
};
