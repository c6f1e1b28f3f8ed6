import { z } from 'zod';
import { templateRefs } from '../references.ts';
import { promptTemplateIssues } from './llm-prompt.ts';
import { type Config, type ProviderSpec, providerName, runCondition } from './spec.ts';

/**
 * llm: the keys this service knows are typed; anything else is kept as sent, because the set of LLM
 * options grows faster than this schema.
 */
export const LlmConfigSchema = z
  .object({
    provider: z.literal('llm'),
    mode: z.string().min(1).max(100).optional().describe('e.g. basic'),
    promptSource: z.string().min(1).max(100).optional().describe('e.g. generated'),
    llmLane: z.string().min(1).max(100).optional().describe('e.g. very_fast'),
    prompt: z
      .string()
      .max(100_000)
      .optional()
      .describe('prompt template; {{column_key}} inserts a row value'),
    promptTemplateId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('a prompt template of the organization (instead of prompt); its variables are column keys'),
    promptVersion: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('pins a version of promptTemplateId; unpinned, a run uses the latest'),
    model: z.string().min(1).max(200).optional(),
    runCondition,
  })
  .catchall(z.unknown())
  .meta({ id: 'LlmConfig', description: 'config of a column with provider llm (other keys are kept)' });

export const llm: ProviderSpec = {
  schema: LlmConfigSchema as z.ZodType<Config>,
  // A prompt may mention a column the author adds later, so it is not refused; it still keeps the
  // column it names from being deleted.
  refs: (config) => templateRefs(config.prompt, ['prompt'], false),
  check: promptTemplateIssues,
};

/** Any other provider (or none, e.g. an input column): the run condition is checked, the rest is open. */
export const OpenConfigSchema = z
  .object({ provider: providerName.optional(), runCondition })
  .catchall(z.unknown())
  .meta({ id: 'ColumnConfig', description: 'config of a column of any other provider' });

export const openProvider: ProviderSpec = {
  schema: OpenConfigSchema as z.ZodType<Config>,
  refs: () => [],
};
