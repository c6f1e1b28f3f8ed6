import { UNKNOWN_PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import {
  type ConfigContext,
  type ConfigResult,
  type ProviderSpecs,
  configRefs as refsWith,
  validateColumnConfig as validateWith,
} from '../../../src/domain/columns/config/index.ts';
import {
  columnConfigSchema,
  configCreateSchema,
  configPatchSchema,
} from '../../../src/domain/columns/config-input.ts';
import { columnSchemaWith } from '../../../src/domain/columns/fields.ts';
import type { ColumnRef } from '../../../src/domain/columns/references.ts';
import { NOTHING_DONE_CODES } from '../../../src/domain/runs/charge-rules.ts';
import type { Executor } from '../executor.ts';
import { notImplementedExecutor } from '../executors/not-implemented.ts';
import { addToCrmProvider } from './add-to-crm.ts';
import { addToSequenceProvider } from './add-to-sequence.ts';
import { companyLookupProvider } from './company-lookup.ts';
import { httpRequestProvider } from './http-request.ts';
import { linkedinProfileProvider } from './linkedin-profile.ts';
import { llmProvider } from './llm.ts';
import { personLookupProvider } from './person-lookup.ts';
import {
  type ColumnConfig,
  type ColumnProvider,
  DEFAULT_RUN_CONCURRENCY,
  type ExecutorDeps,
} from './provider.ts';
import { syncToTableProvider } from './sync-to-table.ts';
import { webSearchProvider } from './web-search.ts';

export { type ColumnProvider, type ExecutorDeps, executorDepsFrom, type PromptLoader } from './provider.ts';

/**
 * THE registry of column providers: one line per provider (docs/architecture.md, "Adding a column
 * provider"). Config validation, the OpenAPI description of `config`, pricing, charge rules, run
 * concurrency and the executor lookup below are all derived from it.
 */
export const COLUMN_PROVIDERS: readonly ColumnProvider[] = [
  addToCrmProvider,
  syncToTableProvider,
  addToSequenceProvider,
  httpRequestProvider,
  llmProvider,
  webSearchProvider,
  companyLookupProvider,
  personLookupProvider,
  linkedinProfileProvider,
];

const BY_NAME: ReadonlyMap<string, ColumnProvider> = new Map(COLUMN_PROVIDERS.map((p) => [p.name, p]));

/** The provider a config names, or undefined (none: an input column; or one this service does not know). */
export const providerOf = (config: ColumnConfig): ColumnProvider | undefined =>
  typeof config.provider === 'string' ? BY_NAME.get(config.provider) : undefined;

/** The config halves of the registry, as the domain's validation, reference and retrigger rules take them. */
export const PROVIDER_SPECS: ProviderSpecs = new Map(
  COLUMN_PROVIDERS.map((p) => [p.name, { schema: p.configSchema, refs: p.refs, check: p.check }]),
);

/** A whole column config against the table (src/domain/columns/config/index.ts), with the registry's providers. */
export const validateColumnConfig = (input: unknown, ctx: ConfigContext): ConfigResult =>
  validateWith(input, ctx, PROVIDER_SPECS);

/** Every column a stored config names (its run condition's and its provider's references). */
export const configRefs = (config: Record<string, unknown>): ColumnRef[] => refsWith(config, PROVIDER_SPECS);

/** `config` of a create request, its OpenAPI description listing the registry's providers. */
export const ConfigCreateSchema = configCreateSchema(COLUMN_PROVIDERS);

/** `config` of a PATCH request, its OpenAPI description listing the registry's providers. */
export const ConfigPatchSchema = configPatchSchema(COLUMN_PROVIDERS);

/** A column as the API shows it: its `config` one of the registry's providers' (or none, or as stored). */
export const ColumnResponseSchema = columnSchemaWith(columnConfigSchema(COLUMN_PROVIDERS));

/**
 * Credits per row for a column's config: its provider's price. A column without a provider (an input
 * column) runs nothing: 0. A provider the registry does not know (saved before such were refused) is
 * priced UNKNOWN_PROVIDER_CREDITS.
 */
export function creditsPerRow(config: ColumnConfig): number {
  if (typeof config.provider !== 'string') return 0;
  return providerOf(config)?.price(config) ?? UNKNOWN_PROVIDER_CREDITS;
}

/** Rows of one run executed at once: the provider's concurrency, else the default 8. */
export const runConcurrency = (config: ColumnConfig): number =>
  providerOf(config)?.concurrency(config) ?? DEFAULT_RUN_CONCURRENCY;

/** The row error codes the provider of a config charges nothing for (the common set for one not known). */
export const noChargeCodesOf = (config: ColumnConfig): ReadonlySet<string> =>
  providerOf(config)?.noChargeCodes ?? NOTHING_DONE_CODES;

/**
 * `executorFor(config)`: the executor of a column's provider, each built once from `deps`; a provider
 * not in the registry (or none) is provider_not_implemented.
 */
export function executorsFrom(deps: ExecutorDeps): (config: ColumnConfig) => Executor {
  const executors = new Map(COLUMN_PROVIDERS.map((p) => [p.name, p.executor(deps)]));
  return (config) =>
    (typeof config.provider === 'string' && executors.get(config.provider)) || notImplementedExecutor;
}
