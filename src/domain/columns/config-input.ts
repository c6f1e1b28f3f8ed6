import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, type FieldError, formatPath } from '../../errors.ts';
import { providerName } from './config/spec.ts';
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
    'input column): ColumnConfig; any other provider is refused. The whole config is validated against the table'
  );
}

/**
 * config as a create request carries it. Only its run condition is checked here (so that the OpenAPI
 * document shows it); the provider schema applies to the whole config, after a PATCH's merge, in the
 * command's decider. The providers come from the provider registry (processes/runs/providers/).
 */
export const configCreateSchema = (providers: readonly DocumentedProvider[]) =>
  z
    .object({ provider: providerName.optional(), runCondition: RunConditionSchema.optional() })
    .catchall(z.unknown())
    .describe(`${providerDoc(providers)}.`);

/** config as a PATCH carries it (configCreateSchema's, merged into the stored one). */
export const configPatchSchema = (providers: readonly DocumentedProvider[]) =>
  z
    .object({
      provider: providerName.nullable().optional(),
      runCondition: RunConditionSchema.nullable().optional(),
    })
    .catchall(z.unknown())
    .describe(
      `${providerDoc(providers)}, after merging: merged one level deep, a key present replaces the stored value ` +
        '(runCondition is replaced whole), a key set to null is removed (runCondition null: every candidate ' +
        'row is considered).',
    );

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
