import { secretsProjection } from '../../projections/secrets/secrets.ts';
import { handleCommand } from '../../src/command.ts';
import { secretPath } from '../../src/domain/secrets/http.ts';
import { PutSecretBody, SecretParams, SecretSchema } from '../../src/domain/secrets/schemas.ts';
import { secretStream } from '../../src/domain/secrets/secret-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface SetSecret {
  organizationId: string;
  name: string;
  /** The value sealed under a new data key; the value itself never reaches a decider or an event. */
  keyId: string;
  ciphertext: string;
}

/** A new secret (version 1, also after a delete) or the next version of one. */
export const setSecret = secretStream.decider((command: SetSecret, state, now) => [
  {
    type: 'SecretValueSet',
    data: { ...command, version: state.exists ? state.version + 1 : 1, at: now.toISOString() },
  },
]);

/**
 * PUT /api/secrets/{name}: 201 with Location when the secret is new, 200 when a new version replaced
 * the old one, whose data key is destroyed once the new version is in the log.
 */
export const putSecretRoute: RouteModule = (app, deps) => {
  app.put(
    '/api/secrets/:name',
    {
      config: { access: 'secrets:write', noStore: true },
      schema: {
        operationId: 'putSecret',
        tags: ['secrets'],
        summary: 'Create a workspace secret or replace its value (the value is never shown again)',
        params: SecretParams,
        body: PutSecretBody,
        response: { 200: SecretSchema, 201: SecretSchema },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const { name } = request.params;
      const vault = deps.parts.vault;
      const sealed = await vault.seal(organizationId, name, request.body.value);
      const result = await handleCommand({
        store: deps.store,
        stream: secretStream.name(organizationId, name),
        decider: setSecret,
        command: { organizationId, name, keyId: sealed.keyId, ciphertext: sealed.ciphertext },
        metadata: eventMetadata(request),
        now: deps.clock(),
      }).catch(async (error: unknown) => {
        await vault.afterFailedWrite(organizationId, name, sealed.keyId).catch(() => {});
        throw error;
      });
      await vault.destroyReplaced(organizationId, name, result.state);
      await readYourWrites(deps, result.appended?.position, [secretsProjection]);
      const { version, createdAt, updatedAt } = result.state;
      const created = version === 1;
      if (created) reply.code(201).header('location', secretPath(name));
      return { name, version, maskedValue: sealed.maskedValue, createdAt, updatedAt, lastUsedAt: null };
    },
  );
};
