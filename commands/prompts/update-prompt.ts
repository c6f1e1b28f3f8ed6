import { isDeepStrictEqual } from 'node:util';
import { promptsProjection } from '../../projections/prompts/prompts.ts';
import { loadPromptForWrite } from '../../services/prompts/load.ts';
import { movePromptNameOf } from '../../services/prompts/names.ts';
import { handleCommand } from '../../src/command.ts';
import { promptNotFound } from '../../src/domain/prompts/access.ts';
import { latestVersion, promptStream, promptView } from '../../src/domain/prompts/prompt-state.ts';
import { PromptParams, PromptSchema, UpdatePromptBody } from '../../src/domain/prompts/schemas.ts';
import {
  carriedVariables,
  type DeclaredVariable,
  invalidTemplate,
  templateVariables,
} from '../../src/domain/prompts/template.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface UpdatePrompt {
  promptId: string;
  name?: string;
  description?: string | null;
  template?: string;
  variables?: DeclaredVariable[];
}

/**
 * The next version: the latest with what the PATCH sends. Without `variables`, a new template keeps
 * the declarations of the variables it still uses. Nothing different from the latest: no version.
 */
export const updatePrompt = promptStream.decider((command: UpdatePrompt, state, now) => {
  if (!state.exists) throw promptNotFound(command.promptId);
  const latest = latestVersion(state);
  const template = command.template ?? latest.template;
  const declared =
    command.variables ??
    (command.template === undefined ? latest.variables : carriedVariables(template, latest.variables));
  const checked = templateVariables(template, declared);
  if (!checked.ok) throw invalidTemplate(checked.errors);
  const content = {
    name: command.name ?? latest.name,
    description: command.description === undefined ? latest.description : command.description,
    template,
    variables: checked.value,
  };
  const { version: _v, createdAt: _at, ...current } = latest;
  if (isDeepStrictEqual(content, current)) return [];
  return [
    {
      type: 'PromptTemplateVersioned',
      data: {
        promptId: state.id,
        organizationId: state.organizationId,
        version: latest.version + 1,
        ...content,
        at: now.toISOString(),
      },
    },
  ];
});

/** PATCH /api/prompts/{promptId}: a new version (versions are immutable); a new name is claimed first. */
export const updatePromptRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/prompts/:promptId',
    {
      config: { access: 'prompts:write' },
      schema: {
        operationId: 'patchPrompt',
        tags: ['prompts'],
        summary: 'Make the next version of a prompt template',
        params: PromptParams,
        body: UpdatePromptBody,
        response: { 200: PromptSchema },
      },
    },
    async (request) => {
      const { promptId } = request.params;
      const loaded = await loadPromptForWrite(deps.store, promptId, principalOf(request));
      const command: UpdatePrompt = { promptId, ...request.body };
      const now = deps.clock();
      const metadata = eventMetadata(request);
      // Decided once before the name moves, so that a refused version leaves nothing behind.
      updatePrompt.decide(command, loaded.state, now);
      const from = latestVersion(loaded.state).name;
      const to = command.name;
      const move = { organizationId: loaded.state.organizationId, promptId };
      const renaming = to !== undefined && to !== from;
      if (renaming) await movePromptNameOf(deps, { ...move, from, to }, metadata);
      const result = await handleCommand({
        store: deps.store,
        stream: promptStream.name(promptId),
        decider: updatePrompt,
        command,
        metadata,
        now,
      }).catch(async (error: unknown) => {
        if (renaming) await movePromptNameOf(deps, { ...move, from: to, to: from }, metadata).catch(() => {});
        throw error;
      });
      await readYourWrites(deps, result.appended?.position, [promptsProjection]);
      return promptView(result.state, latestVersion(result.state));
    },
  );
};
