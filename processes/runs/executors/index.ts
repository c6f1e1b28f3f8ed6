import { type SearchDeps, searchDepsFrom } from '../../../services/search/lookup.ts';
import type { Config } from '../../../src/config.ts';
import type { Pool } from '../../../src/db/pool.ts';
import { DEFAULT_CONCURRENCY } from '../../../src/domain/columns/config/http-request.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import { outboundClientFrom } from '../../../src/net/index.ts';
import type { OutboundClient } from '../../../src/net/outbound.ts';
import type { Executor } from '../executor.ts';
import { addToCrmExecutor } from './add-to-crm.ts';
import { addToSequenceExecutor } from './add-to-sequence.ts';
import { httpRequestExecutor } from './http-request.ts';
import { type LlmSettings, llmExecutor, llmSettingsFrom } from './llm.ts';
import { notImplementedExecutor } from './not-implemented.ts';
import { type PromptLoader, promptLoaderFrom } from './prompt-loader.ts';
import { searchExecutors } from './search-lookups.ts';
import { syncToTableExecutor } from './sync-to-table.ts';

export type { PromptLoader } from './prompt-loader.ts';

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
export const executorDepsFrom = (deps: { config: Config; store: EventStore; pool: Pool }): ExecutorDeps => ({
  outbound: outboundClientFrom(deps.config),
  llm: llmSettingsFrom(deps.config),
  loadPrompt: promptLoaderFrom(deps.store),
  leads: { store: deps.store, pool: deps.pool },
  search: searchDepsFrom(deps),
});

/** `executorFor(config)`: the executor of a column's provider (`config.provider`). */
export function executorsFrom(deps: ExecutorDeps): (config: Readonly<Record<string, unknown>>) => Executor {
  const http = httpRequestExecutor(deps.outbound);
  const llm = llmExecutor({ settings: deps.llm, loadPrompt: deps.loadPrompt });
  const crm = deps.leads ? addToCrmExecutor(deps.leads) : notImplementedExecutor;
  const sequence = deps.leads ? addToSequenceExecutor(deps.leads) : notImplementedExecutor;
  const searches = searchExecutors(deps.search);
  return (config) => {
    if (typeof config.provider === 'string' && Object.hasOwn(searches, config.provider))
      return searches[config.provider as keyof typeof searches];
    switch (config.provider) {
      case 'http_request':
        return http;
      case 'llm':
        return llm;
      case 'sync_to_table':
        return syncToTableExecutor;
      case 'add_to_crm':
        return crm;
      case 'add_to_sequence':
        return sequence;
      default:
        return notImplementedExecutor;
    }
  };
}

/** Rows of one run executed at once: http_request's config.concurrency, else the default 8. */
export function runConcurrency(config: Readonly<Record<string, unknown>>): number {
  return config.provider === 'http_request' && typeof config.concurrency === 'number'
    ? config.concurrency
    : DEFAULT_CONCURRENCY;
}
