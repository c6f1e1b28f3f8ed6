import { z } from 'zod';

// The id's form is checked in the handlers: a malformed id names nothing and answers 404, not 400.
export const PromptParams = z.object({ promptId: z.string() });

export const PromptNameSchema = z.string().trim().min(1).max(200);
const Description = z.string().max(2000).nullable();
const Template = z.string().min(1).max(100_000).describe('text with {{variable}} placeholders');

const DeclaredVariable = z.strictObject({
  name: z.string().min(1).max(64),
  required: z.boolean().optional().describe('default: true unless a default is given'),
  default: z.string().max(100_000).optional(),
});

const Variables = z
  .array(DeclaredVariable)
  .max(100)
  .describe(
    'default: one required variable per placeholder; each must be used and every placeholder declared',
  );

export const CreatePromptBody = z.strictObject({
  name: PromptNameSchema.describe('unique in the organization'),
  description: Description.optional(),
  template: Template,
  variables: Variables.optional(),
});

export const UpdatePromptBody = z
  .strictObject({
    name: PromptNameSchema.optional(),
    description: Description.optional(),
    template: Template.optional(),
    variables: Variables.optional().describe(
      'default: the declarations of the variables the template still uses, new placeholders required',
    ),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'send at least one of name, description, template, variables',
  });

export const PromptSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    template: z.string(),
    variables: z.array(z.object({ name: z.string(), required: z.boolean(), default: z.string().optional() })),
    version: z.number().int(),
    createdAt: z.string().describe('when the template was created'),
    updatedAt: z.string().describe('when this version was made'),
  })
  .meta({ id: 'PromptTemplate' });

export type PromptView = z.infer<typeof PromptSchema>;

export const VersionQuery = z.object({
  version: z.coerce.number().int().min(1).optional().describe('a version; default the latest'),
});

export const RenderBody = z.strictObject({
  variables: z
    .record(z.string().max(64), z.union([z.string().max(100_000), z.number(), z.boolean()]))
    .default({}),
  version: z.number().int().min(1).optional().describe('default: the latest'),
});

export const RenderSchema = z.object({ text: z.string(), version: z.number().int() });
