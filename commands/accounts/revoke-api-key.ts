import { z } from 'zod';
import { authStateFor } from '../../src/auth/authenticator.ts';
import { handleCommand } from '../../src/command.ts';
import { apiKeyStream } from '../../src/domain/accounts/streams.ts';
import { readKey } from '../../src/domain/accounts/views.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
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
 * DELETE /api/keys/{keyId}: revokes a key of the caller's organization. It answers 204 once the
 * api_keys read model shows the revocation and the key is out of this process's cache of verified
 * keys, so the revoked key is refused from its very next request on. When the read model lags (a
 * slow or failed projection), the revocation is recorded but not in force yet: 202, never a 500
 * that would make the caller think nothing happened; the same DELETE answers 204 once it is.
 */
export const revokeApiKeyRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/keys/:keyId',
    {
      config: { access: 'keys:write' },
      schema: {
        tags: ['keys'],
        summary: 'Revoke an API key (202: recorded, in force once the key listing shows it)',
        params,
        response: { 202: z.null(), 204: z.null() },
      },
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
      // A repeated revoke appends nothing: it is in force when the read model says so.
      const inForce = result.appended
        ? await readYourWrites(deps, result.appended.position, KEY_PROJECTIONS)
        : (await readKey(deps.pool, keyId))?.revoked === true;
      // After the read model shows the revocation, a lookup racing this one cannot re-cache the key.
      // Before (202), one may, until the projection applies it and its NOTIFY evicts the key.
      authStateFor(deps.pool).cache.invalidate(keyId);
      return reply.code(inForce ? 204 : 202).send(null);
    },
  );
};
