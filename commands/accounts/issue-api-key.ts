import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { apiKeysProjection } from '../../projections/accounts/api-keys.ts';
import { keyMetadataFromLog } from '../../services/accounts/log-views.ts';
import { keyMetadataSchema, keyPath } from '../../services/accounts/views.ts';
import { generateKey } from '../../src/auth/keys.ts';
import { SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { apiKeyStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** The read models a new key must be visible in before its owner is told about it. */
export const KEY_PROJECTIONS = [apiKeysProjection];

export interface IssueKeyInput {
  organizationId: string;
  userId: string;
  name: string;
  scopes: Scope[];
  /** The scopes of the key asking; omitted by a bootstrap and a login (the owner's own). */
  grantorScopes?: ReadonlySet<Scope>;
  metadata: EventMetadata;
  /** The id to issue it under, when the caller has named it already (a bootstrap); else a new one. */
  keyId?: string;
}

export interface IssueKey {
  keyId: string;
  organizationId: string;
  userId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  secretHash: string;
  /** Scopes of the key asking; undefined for a bootstrap, which grants all of them. */
  grantorScopes?: ReadonlySet<Scope>;
}

/** A new key, with no scope its grantor does not hold itself. */
export const issueKey = apiKeyStream.decider((command: IssueKey, state) => {
  if (state.status !== 'none') throw new AppError('conflict', `API key ${command.keyId} exists already.`);
  const { grantorScopes, ...data } = command;
  const notHeld = grantorScopes ? data.scopes.filter((s) => !grantorScopes.has(s)) : [];
  if (notHeld.length > 0) {
    throw new AppError(
      'scope_not_held',
      `A key can only grant scopes it holds itself; this key lacks ${notHeld.join(', ')}.`,
      { scopes: notHeld },
    );
  }
  return [{ type: 'ApiKeyIssued', data }];
});

/** Appends a new key; the whole key (with its secret) exists only in the value returned here. */
export async function issueApiKey(
  deps: Pick<ServiceDeps, 'store' | 'clock'>,
  input: IssueKeyInput,
): Promise<{ apiKey: string; keyId: string; position: Position }> {
  const key = generateKey(input.keyId);
  const result = await handleCommand({
    store: deps.store,
    stream: apiKeyStream.name(key.keyId),
    decider: issueKey,
    command: {
      keyId: key.keyId,
      organizationId: input.organizationId,
      userId: input.userId,
      name: input.name,
      prefix: key.prefix,
      scopes: [...new Set(input.scopes)],
      secretHash: key.secretHash,
      grantorScopes: input.grantorScopes,
    },
    metadata: input.metadata,
    now: deps.clock(),
  });
  return { apiKey: key.apiKey, keyId: key.keyId, position: result.appended!.position };
}

/**
 * Issues a key and answers with it: the only copy of its secret, so the answer is built from the log
 * whether or not the key listing shows the key yet (it does once this returns, unless it lags).
 */
export async function issueKeyAnswer(deps: ServiceDeps, input: IssueKeyInput) {
  const issued = await issueApiKey(deps, input);
  await readYourWrites(deps, issued.position, KEY_PROJECTIONS);
  return { apiKey: issued.apiKey, keyMetadata: await keyMetadataFromLog(deps.store, issued.keyId) };
}

/**
 * The 201 of a call that created a key and answers with its secret: `Location` names the key, and no
 * cache (a proxy's, a browser's) may keep the answer.
 */
export function sendCreatedKey(reply: FastifyReply, keyId: string, body: unknown) {
  return reply.code(201).header('location', keyPath(keyId)).header('cache-control', 'no-store').send(body);
}

const body = z
  .object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
  })
  .strict();

export const issuedKeySchema = z.object({ apiKey: z.string(), keyMetadata: keyMetadataSchema });

/** POST /api/keys: a key of the caller's organization, with at most the scopes the caller holds. */
export const issueApiKeyRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/keys',
    {
      // The answer shows the key once: no cache keeps it, nor does Idempotency-Key (refused here).
      config: { access: 'keys:write', noStore: true },
      schema: {
        operationId: 'issueApiKey',
        tags: ['keys'],
        summary: 'Issue an API key (the key is returned once)',
        body,
        response: { 201: issuedKeySchema },
        responseHeaders: { 201: ['Cache-Control'] },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const answer = await issueKeyAnswer(deps, {
        organizationId: principal.organizationId,
        userId: principal.userId,
        name: request.body.name,
        scopes: request.body.scopes,
        grantorScopes: principal.scopes,
        metadata: eventMetadata(request),
      });
      return sendCreatedKey(reply, answer.keyMetadata.id, answer);
    },
  );
};
