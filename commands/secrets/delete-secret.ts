import { z } from 'zod';
import { secretsProjection } from '../../projections/secrets/secrets.ts';
import { handleCommand } from '../../src/command.ts';
import { SecretParams } from '../../src/domain/secrets/schemas.ts';
import { secretNotFound, secretStream } from '../../src/domain/secrets/secret-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface DeleteSecret {
  organizationId: string;
  name: string;
}

export const deleteSecret = secretStream.decider(({ organizationId, name }: DeleteSecret, state, now) => {
  if (!state.exists) throw secretNotFound(name);
  return [{ type: 'SecretDeleted', data: { organizationId, name, at: now.toISOString() } }];
});

/**
 * DELETE /api/secrets/{name}: 204 once the deletion is in the log and every data key the secret ever
 * had is destroyed, so that its values cannot be decrypted from the log, a rebuild or a dump. Should
 * destroying fail, the error is the answer, and the same DELETE (then a 404) destroys them.
 */
export const deleteSecretRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/secrets/:name',
    {
      config: { access: 'secrets:write', noStore: true },
      schema: {
        operationId: 'deleteSecret',
        tags: ['secrets'],
        summary: 'Delete a workspace secret and destroy its keys',
        params: SecretParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const { name } = request.params;
      const vault = deps.parts.vault;
      const result = await handleCommand({
        store: deps.store,
        stream: secretStream.name(organizationId, name),
        decider: deleteSecret,
        command: { organizationId, name },
        metadata: eventMetadata(request),
        now: deps.clock(),
      }).catch(async (error: unknown) => {
        // A 404 too: keys that a crash left behind after an earlier delete go now.
        await vault.afterFailedWrite(organizationId, name).catch(() => {});
        throw error;
      });
      await vault.destroyReplaced(organizationId, name, result.state);
      await readYourWrites(deps, result.appended?.position, [secretsProjection]);
      return reply.code(204).send(null);
    },
  );
};
