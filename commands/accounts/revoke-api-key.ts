import { z } from 'zod';
import { authStateFor } from '../../src/auth/authenticator.ts';
import { handleCommand } from '../../src/command.ts';
import { apiKeyDecider } from '../../src/domain/accounts/api-key-decider.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { streams } from '../../src/streams.ts';
import { KEY_PROJECTIONS } from './issue-api-key.ts';

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
        stream: streams.apiKey(keyId),
        decider: apiKeyDecider,
        command: { type: 'RevokeApiKey', keyId, organizationId: principal.organizationId },
        metadata: { correlationId: request.id, actor: principal.keyId },
        now: deps.clock(),
      });
      if (result.appended) await deps.projections.waitFor(result.appended.position, KEY_PROJECTIONS);
      // After the read model shows the revocation: a lookup racing this one cannot re-cache the key.
      authStateFor(deps.pool).cache.invalidate(keyId);
      return reply.code(204).send(null);
    },
  );
};
