import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiKeysProjection } from '../../projections/accounts/api-keys.ts';
import { organizationsProjection } from '../../projections/accounts/organizations.ts';
import { usersProjection } from '../../projections/accounts/users.ts';
import { hashPassword } from '../../src/auth/password.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { handleCommand } from '../../src/command.ts';
import { STARTER_CREDITS } from '../../src/domain/accounts/events.ts';
import {
  keyMetadataFromLog,
  organizationFromLog,
  userDataFromLog,
} from '../../src/domain/accounts/log-views.ts';
import { emailReservationStream, organizationStream, userStream } from '../../src/domain/accounts/streams.ts';
import { keyMetadataSchema, organizationSchema, userDataSchema } from '../../src/domain/accounts/views.ts';
import { AppError } from '../../src/errors.ts';
import type { AppDeps, RouteModule } from '../../src/http/app.ts';
import { readYourWrites } from '../../src/http/commands.ts';
import { issueApiKey } from './issue-api-key.ts';

/*
 * The deciders of the streams a bootstrap creates. Each refuses to create what exists already; the
 * email reservation is the one that can lose a race, and its refusal is the 409 of a taken email.
 */

export interface ReserveEmail {
  email: string;
  userId: string;
  organizationId: string;
}

export const reserveEmail = emailReservationStream.decider((command: ReserveEmail, state) => {
  if (state.reserved) throw new AppError('email_taken', 'An account with this email address exists already.');
  return [{ type: 'EmailReserved', data: { ...command } }];
});

export interface CreateOrganization {
  organizationId: string;
  name: string;
  createdBy: string;
}

export const createOrganization = organizationStream.decider((command: CreateOrganization, state) => {
  if (state.exists) throw new AppError('conflict', `Organization ${command.organizationId} exists already.`);
  return [
    { type: 'OrganizationCreated', data: { ...command } },
    {
      type: 'CreditsGranted',
      data: { organizationId: command.organizationId, amount: STARTER_CREDITS, reason: 'starter' },
    },
  ];
});

export interface RegisterUser {
  userId: string;
  organizationId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  passwordHash: string;
}

export const registerUser = userStream.decider((command: RegisterUser, state) => {
  if (state.exists) throw new AppError('conflict', `User ${command.userId} exists already.`);
  return [{ type: 'UserRegistered', data: { ...command } }];
});

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
    stream: emailReservationStream.name(input.email),
    decider: reserveEmail,
    command: { email: input.email, userId, organizationId },
  });
  await handleCommand({
    ...common,
    stream: organizationStream.name(organizationId),
    decider: createOrganization,
    command: { organizationId, name: input.organization_name, createdBy: userId },
  });
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
  // The key's append is the last of the four, so once it is projected everything is. The answer comes
  // from the log: the read models may lag, and a 500 here would lose the key's secret.
  await readYourWrites(deps, key.position, PROJECTIONS);
  const [keyMetadata, user, organization] = await Promise.all([
    keyMetadataFromLog(deps.store, key.keyId),
    userDataFromLog(deps.store, userId),
    organizationFromLog(deps.store, organizationId),
  ]);
  return {
    apiKey: key.apiKey,
    userData: user,
    keyMetadata,
    credits: { organization, user: { id: userId, creditsUsed: 0 } },
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
