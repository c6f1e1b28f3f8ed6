import { promptsProjection } from '../../projections/prompts/prompts.ts';
import { movePromptNameOf } from '../../services/prompts/names.ts';
import { handleCommand } from '../../src/command.ts';
import { newPromptId } from '../../src/domain/prompts/access.ts';
import { latestVersion, promptStream, promptView } from '../../src/domain/prompts/prompt-state.ts';
import { CreatePromptBody, PromptSchema } from '../../src/domain/prompts/schemas.ts';
import {
  type DeclaredVariable,
  invalidTemplate,
  templateVariables,
} from '../../src/domain/prompts/template.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface CreatePrompt {
  promptId: string;
  organizationId: string;
  name: string;
  description: string | null;
  template: string;
  variables?: DeclaredVariable[];
}

/** Version 1 of a template, whose variables and placeholders agree. */
export const createPrompt = promptStream.decider(({ variables, ...command }: CreatePrompt, state, now) => {
  if (state.id) throw new AppError('conflict', `Prompt template ${command.promptId} already exists.`);
  const checked = templateVariables(command.template, variables);
  if (!checked.ok) throw invalidTemplate(checked.errors);
  return [
    { type: 'PromptTemplateCreated', data: { ...command, variables: checked.value, at: now.toISOString() } },
  ];
});

export const promptPath = (promptId: string) => `/api/prompts/${promptId}`;

/**
 * POST /api/prompts: the name is claimed on the organization's names stream first (unique, 409),
 * then the template's stream is created; a failure there gives the name back.
 */
export const createPromptRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/prompts',
    {
      config: { access: 'prompts:write' },
      schema: {
        operationId: 'createPrompt',
        tags: ['prompts'],
        summary: 'Create a prompt template (version 1)',
        body: CreatePromptBody,
        response: { 201: PromptSchema },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const { name, description, template, variables } = request.body;
      const command: CreatePrompt = {
        promptId: newPromptId(),
        organizationId,
        name,
        description: description ?? null,
        template,
        variables,
      };
      const now = deps.clock();
      const metadata = eventMetadata(request);
      // Decided once before claiming the name, so that a refused template leaves nothing behind.
      createPrompt.decide(command, promptStream.initialState(), now);
      const move = { organizationId, promptId: command.promptId };
      await movePromptNameOf(deps, { ...move, to: name }, metadata);
      const result = await handleCommand({
        store: deps.store,
        stream: promptStream.name(command.promptId),
        decider: createPrompt,
        command,
        metadata,
        now,
      }).catch(async (error: unknown) => {
        await movePromptNameOf(deps, { ...move, from: name }, metadata).catch(() => {});
        throw error;
      });
      await readYourWrites(deps, result.appended?.position, [promptsProjection]);
      return reply
        .code(201)
        .header('location', promptPath(command.promptId))
        .send(promptView(result.state, latestVersion(result.state)));
    },
  );
};
