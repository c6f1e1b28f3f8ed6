import { z } from 'zod';
import { authStateFor } from '../../src/auth/authenticator.ts';
import { handleCommand } from '../../src/command.ts';
import { apiKeyStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { eventMetadata } from '../../src/http/commands.ts';
import { KEY_PROJECTIONS } from './issue-api-key.ts';

export interface RevokeKey {
  keyId: string;
  organizationId: string;
}

/** Revoking a revoked key changes nothing; another organization's key is answered like a missing one. */
export const revokeKey = apiKeyStream.decider((command: RevokeKey, state) => {
  // Ids are not probed: another organization's key gets the answer a key that does not exist gets.
  if (state.status === 'none' || state.organizationId !== command.organizationId) {
    throw new AppError('not_found', `No API key ${command.keyId} in this organization.`);
  }
  if (state.status === 'revoked') return [];
  return [{ type: 'ApiKeyRevoked', data: { keyId: command.keyId, organizationId: command.organizationId } }];
});

const params = z.object({ keyId: z.string().min(1).max(64) });

/**
 * DELETE /api/keys/{keyId}: revokes a key of the caller's organization. It answers only once the
 * api_keys read model shows the revocation and the key is out of this process's cache of verified
 * keys, so the revoked key is refused from its very next request on.
 */
export const revokeApiKeyRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/keys/:keyId',
    {
      config: { access: 'keys:write' },
      schema: { tags: ['keys'], summary: 'Revoke an API key', params, response: { 204: z.null() } },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { keyId } = request.params;
      const result = await handleCommand({
        store: deps.store,
        stream: apiKeyStream.name(keyId),
        decider: revokeKey,
        command: { keyId, organizationId: principal.organizationId },
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      if (result.appended) await deps.projections.waitFor(result.appended.position, KEY_PROJECTIONS);
      // After the read model shows the revocation: a lookup racing this one cannot re-cache the key.
      authStateFor(deps.pool).cache.invalidate(keyId);
      return reply.code(204).send(null);
    },
  );
};
