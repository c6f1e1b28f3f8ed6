import { z } from 'zod';
import { keyNotFound, keyParams, readKey, readOrganizationKeys } from '../../services/accounts/views.ts';
import { withOrganizationKeysLock } from '../../src/auth/account-locks.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { apiKeyStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { KEY_PROJECTIONS } from './issue-api-key.ts';

/** The scope that lets a key issue and revoke keys: an organization always keeps one key holding it. */
const ADMIN_SCOPE: Scope = 'keys:write';

export interface RevokeKey {
  keyId: string;
  organizationId: string;
  /** How many other active keys of the organization hold keys:write (otherAdminKeys below). */
  otherAdminKeys: number;
}

/**
 * Revoking a revoked key changes nothing; another organization's key is answered like a missing one.
 * The organization's last active key holding keys:write is not revoked: nobody could manage its keys
 * afterwards (a key revoking itself, or a narrower key revoking the only full one).
 */
export const revokeKey = apiKeyStream.decider((command: RevokeKey, state) => {
  if (state.status === 'none' || state.organizationId !== command.organizationId)
    throw keyNotFound(command.keyId);
  if (state.status === 'revoked') return [];
  if (state.scopes.includes(ADMIN_SCOPE) && command.otherAdminKeys === 0) {
    throw new AppError(
      'last_admin_key',
      `Key ${command.keyId} is the last active key of this organization that holds ${ADMIN_SCOPE}: ` +
        'without it nobody could issue or revoke keys. Issue another key with keys:write first.',
    );
  }
  return [{ type: 'ApiKeyRevoked', data: { keyId: command.keyId, organizationId: command.organizationId } }];
});

/**
 * The other active keys:write keys of the organization. Candidates come from the key listing, each
 * confirmed by its own stream, so a revocation the read model has not applied yet is seen. A key the
 * listing does not show yet is missed, which can only refuse a revocation, never allow a lockout.
 */
async function otherAdminKeys(deps: ServiceDeps, organizationId: string, keyId: string): Promise<number> {
  const rows = await readOrganizationKeys(deps.pool, organizationId);
  const candidates = rows.filter((k) => k.key_id !== keyId && !k.revoked && k.scopes.includes(ADMIN_SCOPE));
  const states = await Promise.all(
    candidates.map((k) => loadState(deps.store, apiKeyStream.name(k.key_id), apiKeyStream)),
  );
  return states.filter(({ state }) => state.status === 'active').length;
}

/**
 * DELETE /api/keys/{keyId}: revokes a key of the caller's organization. It answers 204 once the
 * api_keys read model shows the revocation and the key is out of this process's cache of verified
 * keys, so the revoked key is refused from its very next request on. When the read model lags (a
 * slow or failed projection), the revocation is recorded but not in force yet: 202, never a 500
 * that would make the caller think nothing happened; the same DELETE answers 204 once it is. The
 * organization's last key that can manage keys is refused (409 last_admin_key).
 */
export const revokeApiKeyRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/keys/:keyId',
    {
      config: { access: 'keys:write' },
      schema: {
        operationId: 'revokeApiKey',
        tags: ['keys'],
        summary: 'Revoke an API key (202: recorded, in force once the key listing shows it)',
        params: keyParams,
        response: { 202: z.null(), 204: z.null() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { keyId } = request.params;
      const { organizationId } = principal;
      // Counted and revoked under the organization's lock: two keys revoking each other at once would
      // each count the other as the one left.
      const result = await withOrganizationKeysLock(deps.pool, organizationId, async () =>
        handleCommand({
          store: deps.store,
          stream: apiKeyStream.name(keyId),
          decider: revokeKey,
          command: {
            keyId,
            organizationId,
            otherAdminKeys: await otherAdminKeys(deps, organizationId, keyId),
          },
          metadata: eventMetadata(request),
          now: deps.clock(),
        }),
      );
      // A repeated revoke appends nothing: it is in force when the read model says so.
      const inForce = result.appended
        ? await readYourWrites(deps, result.appended.position, KEY_PROJECTIONS)
        : (await readKey(deps.pool, keyId))?.revoked === true;
      // After the read model shows the revocation, a lookup racing this one cannot re-cache the key.
      // Before (202), one may, until the projection applies it and its NOTIFY evicts the key.
      deps.parts.auth.cache.invalidate(keyId);
      // No body at all (the schema's null types the route; `send(null)` would write a JSON `null`).
      return reply.code(inForce ? 204 : 202).send(undefined as never);
    },
  );
};
