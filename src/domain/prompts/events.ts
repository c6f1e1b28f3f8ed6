import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

const Variable = z.object({ name: z.string(), required: z.boolean(), default: z.string().optional() });

/** A version's whole content: versions are immutable, each event holds one complete. */
const content = {
  name: z.string(),
  description: z.string().nullable(),
  template: z.string(),
  variables: z.array(Variable),
};

/** Events of a prompt template's stream (promptStream). */
export const promptEvents = {
  PromptTemplateCreated: z.object({
    promptId: z.string(),
    organizationId: z.string(),
    ...content,
    at: z.string(),
  }),
  PromptTemplateVersioned: z.object({
    promptId: z.string(),
    organizationId: z.string(),
    version: z.number().int().min(2),
    ...content,
    at: z.string(),
  }),
  PromptTemplateDeleted: z.object({ promptId: z.string(), organizationId: z.string(), at: z.string() }),
};

/**
 * Events of an organization's prompt names (promptNamesStream): a name is claimed with the revision
 * read, so it is unique in the organization even when two creates or renames race.
 */
export const promptNameEvents = {
  PromptNameClaimed: z.object({ organizationId: z.string(), name: z.string(), promptId: z.string() }),
  PromptNameReleased: z.object({ organizationId: z.string(), name: z.string(), promptId: z.string() }),
};

export type PromptEvent = EventsOf<typeof promptEvents>;
export type PromptNameEvent = EventsOf<typeof promptNameEvents>;
