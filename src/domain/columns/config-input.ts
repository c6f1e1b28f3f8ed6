import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, type FieldError, formatPath } from '../../errors.ts';
import { RunConditionSchema, runConditionBounds } from './run-condition.ts';

/** What the OpenAPI description needs of a provider: its name and its config schema (with its id). */
export interface DocumentedProvider {
  name: string;
  configSchema: z.ZodType;
}

/** The description of `config`, listing each provider with the id of its schema in the document. */
export function providerDoc(providers: readonly DocumentedProvider[]): string {
  const listed = providers.map(({ name, configSchema }) => {
    const id = configSchema.meta()?.id;
    return typeof id === 'string' ? `${name} (${id})` : name;
  });
  return (
    `Provider-specific; config.provider selects the schema: ${listed.join(', ')}; no provider (an ` +
    'input column): InputColumnConfig; any other provider is refused. The whole config is validated against the table'
  );
}

/** The refusal of a config whose provider is not a known one: at config.provider, naming the known ones. */
const unknownProviderError =
  (providers: readonly DocumentedProvider[]) =>
  (issue: { code: string; note?: string; input?: unknown }): string | undefined => {
    if (issue.code !== 'invalid_union' || issue.note !== 'No matching discriminator') return undefined;
    const given = (issue.input as { provider?: unknown } | undefined)?.provider;
    return `unknown provider ${JSON.stringify(given)}; the known ones: ${providers.map((p) => p.name).join(', ')}`;
  };

/** The config of an input column: no provider (nothing runs it); a run condition, and other keys kept as sent. */
export const InputColumnConfigSchema = z
  .object({
    provider: z
      .undefined()
      .optional()
      .meta({ not: {}, description: 'None: an input column runs no provider' }),
    runCondition: RunConditionSchema.optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'InputColumnConfig', description: 'config of a column without a provider (an input column)' });

type Discriminable = Parameters<typeof z.discriminatedUnion>[1][number];
/** A config as the routes read it: the union's members are the providers', known only at run time. */
type ConfigSchema = z.ZodType<Record<string, unknown>, Record<string, unknown>>;

/**
 * config as a create request carries it: one schema per provider, chosen by `provider` (the
 * registry's config schemas, processes/runs/providers/), or an input column's without one. An
 * unknown provider is refused at config.provider, naming the known ones. The whole config is
 * validated again against the table in the command's decider.
 */
export const configCreateSchema = (providers: readonly DocumentedProvider[]) =>
  z
    .discriminatedUnion(
      'provider',
      [InputColumnConfigSchema, ...providers.map((p) => p.configSchema as Discriminable)] as [
        Discriminable,
        ...Discriminable[],
      ],
      { error: unknownProviderError(providers) },
    )
    .describe(`${providerDoc(providers)}.`) as unknown as ConfigSchema;

/**
 * A provider's config as a PATCH carries it: every field optional, `null` to remove it, no default
 * filled in (a PATCH sends only what changes); a key the provider's schema does not know may only be
 * removed (`null`), as when changing provider.
 */
function patchFormOf(schema: z.ZodType): Discriminable {
  const meta = schema.meta() as { id?: string; description?: string } | undefined;
  // A schema that completes the config (a transform) is an object piped into it: the object is the form.
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodPipe) inner = inner.in as z.ZodType;
  const object = inner as unknown as z.ZodObject;
  const shape = Object.fromEntries(
    Object.entries(object.shape).map(([key, field]) => {
      if (key === 'provider') return [key, field];
      const bare = field instanceof z.ZodDefault ? field.removeDefault() : field;
      return [key, (bare as z.ZodType).nullable().optional()];
    }),
  );
  const catchall = object._zod.def.catchall;
  const open = catchall !== undefined && !(catchall instanceof z.ZodNever);
  const id = meta?.id?.replace(/Config$/, 'ConfigPatch');
  return z
    .object(shape)
    .catchall(open ? z.unknown() : z.null())
    .meta({
      ...(id ? { id } : {}),
      description: `${meta?.description ?? 'config'}, as a PATCH sends it: a key present replaces the stored value, null removes it`,
    }) as Discriminable;
}

/** A PATCH that names no provider: merged into the stored config, whatever its provider. */
const SameProviderPatchSchema = z
  .object({
    provider: z
      .undefined()
      .optional()
      .meta({ not: {}, description: 'Absent: the column keeps its provider' }),
    runCondition: RunConditionSchema.nullable().optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'SameProviderConfigPatch', description: 'config of a PATCH that keeps the provider' });

/** A PATCH that removes the provider: the column becomes an input column. */
const NoProviderPatchSchema = z
  .object({ provider: z.null(), runCondition: RunConditionSchema.nullable().optional() })
  .catchall(z.unknown())
  .meta({ id: 'NoProviderConfigPatch', description: 'config of a PATCH that removes the provider' });

/** config as a PATCH carries it (merged into the stored one, the result validated whole by the decider). */
export const configPatchSchema = (providers: readonly DocumentedProvider[]) =>
  z
    .discriminatedUnion(
      'provider',
      [
        SameProviderPatchSchema,
        NoProviderPatchSchema,
        ...providers.map((p) => patchFormOf(p.configSchema)),
      ] as [Discriminable, ...Discriminable[]],
      { error: unknownProviderError(providers) },
    )
    .describe(
      `${providerDoc(providers)}, after merging: merged one level deep, a key present replaces the stored value ` +
        '(runCondition is replaced whole), a key set to null is removed (runCondition null: every candidate ' +
        'row is considered).',
    ) as unknown as ConfigSchema;

/**
 * A config saved with a provider the service does not know (before such were refused), or one a
 * provider's schema no longer accepts: shown as stored. It cannot run; patch it or delete the column.
 */
export const UnknownProviderConfigSchema = z
  .object({ provider: z.string(), runCondition: RunConditionSchema.optional() })
  .catchall(z.unknown())
  .meta({
    id: 'UnknownProviderConfig',
    description:
      'config saved with a provider this service does not know (before such were refused): it cannot run',
  });

/** config as a column shows it: one of the known providers' (or none), else as it was stored. */
export const columnConfigSchema = (providers: readonly DocumentedProvider[]) =>
  z
    .union([
      z.discriminatedUnion('provider', [
        InputColumnConfigSchema,
        ...providers.map((p) => p.configSchema as Discriminable),
      ] as [Discriminable, ...Discriminable[]]),
      UnknownProviderConfigSchema,
    ])
    .describe(`${providerDoc(providers)}.`) as unknown as ConfigSchema;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * preValidation: refuses an over-deep or over-large run condition before the recursive schema walks
 * it, so that nesting cannot exhaust the stack.
 */
export async function boundRunConditions(request: FastifyRequest): Promise<void> {
  const config = isObject(request.body) ? request.body.config : undefined;
  if (!isObject(config)) return;
  const slots: { path: PropertyKey[]; node: unknown }[] = [
    { path: ['config', 'runCondition'], node: config.runCondition },
  ];
  if (Array.isArray(config.routes)) {
    config.routes.forEach((r, i) => {
      if (isObject(r)) slots.push({ path: ['config', 'routes', i, 'condition'], node: r.condition });
    });
  }
  const errors: FieldError[] = [];
  for (const { path, node } of slots) {
    const message = node === undefined || node === null ? undefined : runConditionBounds(node);
    if (message) errors.push({ path: formatPath(path), message });
  }
  if (errors.length > 0) {
    throw new AppError('validation_failed', `Invalid body: ${errors.map((e) => e.path).join(', ')}`, {
      errors,
    });
  }
}

/** Top-level nulls in a create mean "not set". */
export const withoutNulls = (config: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null && v !== undefined));

/** The 400 a refused config answers with, naming every offending path. */
export const invalidConfig = (errors: FieldError[]) =>
  new AppError('validation_failed', `Invalid config: ${errors.map((e) => e.path).join(', ')}`, { errors });
