import { z } from 'zod';
import { promptsProjection } from '../../projections/prompts/prompts.ts';
import { columnsUsingPrompt, type PromptReferrer } from '../../services/prompts/column-templates.ts';
import { loadPromptForWrite } from '../../services/prompts/load.ts';
import { movePromptNameOf } from '../../services/prompts/names.ts';
import { handleCommand } from '../../src/command.ts';
import { promptNotFound } from '../../src/domain/prompts/access.ts';
import { latestVersion, promptStream } from '../../src/domain/prompts/prompt-state.ts';
import { PromptParams } from '../../src/domain/prompts/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface DeletePrompt {
  promptId: string;
  /** Gathered from the columns read model before deciding. */
  referencedBy: PromptReferrer[];
}

/** A template no column's config names is deleted; one that is named stays (409). */
export const deletePrompt = promptStream.decider(({ promptId, referencedBy }: DeletePrompt, state, now) => {
  if (!state.exists) throw promptNotFound(promptId);
  if (referencedBy.length > 0) {
    const list = referencedBy.map((r) => `${r.key} (table ${r.tableId})`).join(', ');
    throw new AppError('prompt_in_use', `Prompt template ${promptId} is used by the columns ${list}.`, {
      referencedBy,
    });
  }
  return [
    {
      type: 'PromptTemplateDeleted',
      data: { promptId, organizationId: state.organizationId, at: now.toISOString() },
    },
  ];
});

/**
 * DELETE /api/prompts/{promptId}: 204, then its name is free again. The references are read just
 * before the append: a column naming the template in that instant can still win the race, and its
 * run then finds no template.
 */
export const deletePromptRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/prompts/:promptId',
    {
      config: { access: 'prompts:write' },
      schema: {
        operationId: 'deletePrompt',
        tags: ['prompts'],
        summary: 'Delete a prompt template no column uses',
        params: PromptParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { promptId } = request.params;
      const loaded = await loadPromptForWrite(deps.store, promptId, principalOf(request));
      const metadata = eventMetadata(request);
      const result = await handleCommand({
        store: deps.store,
        stream: promptStream.name(promptId),
        decider: deletePrompt,
        command: { promptId, referencedBy: await columnsUsingPrompt(deps.pool, promptId) },
        metadata,
        now: deps.clock(),
      });
      const { organizationId } = loaded.state;
      // The delete has landed: a lost release must not turn it into an error. A later create of the
      // name takes it over from the deleted template (names.ts).
      await movePromptNameOf(
        deps,
        { organizationId, promptId, from: latestVersion(result.state).name },
        metadata,
      ).catch((error: unknown) => deps.logger.warn({ err: error, promptId }, 'prompt name not released'));
      await readYourWrites(deps, result.appended?.position, [promptsProjection]);
      return reply.code(204).send(null);
    },
  );
};
