import type { z } from 'zod';
import type { SearchDeps } from '../../../services/search/lookup.ts';
import type { Pool } from '../../../src/db/pool.ts';
import type { ServiceDeps } from '../../../src/deps.ts';
import { DEFAULT_CONCURRENCY } from '../../../src/domain/columns/config/http-request.ts';
import type { ConfigContext, ConfigIssue, ProviderSpec } from '../../../src/domain/columns/config/spec.ts';
import type { ColumnRef } from '../../../src/domain/columns/references.ts';
import { NOTHING_DONE_CODES } from '../../../src/domain/runs/charge-rules.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import { outboundClientFrom } from '../../../src/net/index.ts';
import type { OutboundClient } from '../../../src/net/outbound.ts';
import type { Executor } from '../executor.ts';
import { type LlmSettings, llmSettingsFrom } from '../executors/llm.ts';
import { type PromptLoader, promptLoaderFrom } from '../executors/prompt-loader.ts';

export type { PromptLoader } from '../executors/prompt-loader.ts';

/** A column's config as stored (its provider in `provider`). */
export type ColumnConfig = Readonly<Record<string, unknown>>;

/** What the executors need from the process: built once, shared by every run. */
export interface ExecutorDeps {
  outbound: OutboundClient;
  llm: LlmSettings;
  loadPrompt: PromptLoader;
  /** The store and pool add_to_crm and add_to_sequence write and read through (absent: not run). */
  leads?: { store: EventStore; pool: Pool };
  /** The search and LinkedIn data providers and their cache (absent: those providers are unavailable). */
  search?: SearchDeps;
}

/** The process's executor dependencies from its configuration, event store and pool. */
export const executorDepsFrom = (
  deps: Pick<ServiceDeps, 'config' | 'store' | 'pool' | 'parts'>,
): ExecutorDeps => ({
  outbound: outboundClientFrom(deps.config),
  llm: llmSettingsFrom(deps.config),
  loadPrompt: promptLoaderFrom(deps.store),
  leads: { store: deps.store, pool: deps.pool },
  search: deps.parts.search,
});

/** Rows of one run executed at once, unless a provider says otherwise (http_request's default too). */
export const DEFAULT_RUN_CONCURRENCY = DEFAULT_CONCURRENCY;

/**
 * A column provider, whole: everything the service knows of it is here or imported from here, and
 * the registry (./index.ts) derives config validation, the OpenAPI description, pricing, charge
 * rules, run concurrency and execution from the list of these. The pure parts (schema, refs, check,
 * price) live in the domain and the price table; this object ties them to the executor.
 */
export interface ColumnProvider {
  /** config.provider: lower snake case. */
  readonly name: string;
  /** The whole config, validated on create and after a PATCH's merge (its `.meta({ id })` names it in the OpenAPI document). */
  readonly configSchema: z.ZodType<Record<string, unknown>>;
  /** Every column a valid config names (kept from deletion, checked to exist when `mustExist`). */
  refs(config: Record<string, unknown>): ColumnRef[];
  /** Any rule the schema cannot say, against the table and the organization. */
  check?(config: Record<string, unknown>, ctx: ConfigContext): ConfigIssue[];
  /** Credits per row, reserved at the start and charged per row by the charge rules. */
  price(config: ColumnConfig): number;
  /** Rows of one run executed at once. */
  concurrency(config: ColumnConfig): number;
  /** Row error codes that mean nothing was sent or written, so the row costs nothing. */
  readonly noChargeCodes: ReadonlySet<string>;
  /** The executor, built once per process from its dependencies. */
  executor(deps: ExecutorDeps): Executor;
}

/** A provider with the defaults filled in: the common concurrency and the common no-charge codes. */
export const columnProvider = (
  provider: Omit<ColumnProvider, 'concurrency' | 'noChargeCodes'> &
    Partial<Pick<ColumnProvider, 'concurrency' | 'noChargeCodes'>>,
): ColumnProvider => ({
  concurrency: () => DEFAULT_RUN_CONCURRENCY,
  noChargeCodes: NOTHING_DONE_CODES,
  ...provider,
});

/** The config half of a provider from its spec in the domain (src/domain/columns/config/<provider>.ts). */
export const configOf = (spec: ProviderSpec) => ({
  configSchema: spec.schema,
  refs: spec.refs,
  ...(spec.check ? { check: spec.check } : {}),
});
