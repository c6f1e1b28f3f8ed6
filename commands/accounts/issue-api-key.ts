import { z } from 'zod';
import { generateKey } from '../../src/auth/keys.ts';
import { SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { handleCommand } from '../../src/command.ts';
import { apiKeyDecider } from '../../src/domain/accounts/api-key-decider.ts';
import { keyMetadata, keyMetadataSchema, readKey } from '../../src/domain/accounts/views.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { AppDeps, RouteModule } from '../../src/http/app.ts';
import { streams } from '../../src/streams.ts';

/** The read models a new key must be visible in before its owner is told about it. */
export const KEY_PROJECTIONS = ['api_keys'] as const;

export interface IssueKeyInput {
  organizationId: string;
  userId: string;
  name: string;
  scopes: Scope[];
  /** The scopes of the key asking; omitted by a bootstrap. */
  grantorScopes?: ReadonlySet<Scope>;
  metadata: EventMetadata;
}

/** Appends a new key; the whole key (with its secret) exists only in the value returned here. */
export async function issueApiKey(
  deps: Pick<AppDeps, 'store' | 'clock'>,
  input: IssueKeyInput,
): Promise<{ apiKey: string; keyId: string; position: Position }> {
  const key = generateKey();
  const result = await handleCommand({
    store: deps.store,
    stream: streams.apiKey(key.keyId),
    decider: apiKeyDecider,
    command: {
      type: 'IssueApiKey',
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
      config: { access: 'keys:write' },
      schema: {
        tags: ['keys'],
        summary: 'Issue an API key (the key is returned once)',
        body,
        response: { 201: issuedKeySchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const issued = await issueApiKey(deps, {
        organizationId: principal.organizationId,
        userId: principal.userId,
        name: request.body.name,
        scopes: request.body.scopes,
        grantorScopes: principal.scopes,
        metadata: { correlationId: request.id, actor: principal.keyId },
      });
      await deps.projections.waitFor(issued.position, KEY_PROJECTIONS);
      const row = await readKey(deps.pool, issued.keyId);
      if (!row) throw new AppError('internal', 'The new key is not readable yet.');
      return reply.code(201).send({ apiKey: issued.apiKey, keyMetadata: keyMetadata(row) });
    },
  );
};
