import { compose, type Feature } from '../src/feature.ts';
import { accountsFeature } from './features/accounts.ts';
import { autorunFeature } from './features/autorun.ts';
import { columnsFeature } from './features/columns.ts';
import { consoleFeature } from './features/console.ts';
import { contentFeature } from './features/content.ts';
import { leadsFeature } from './features/leads.ts';
import { linkedinFeature } from './features/linkedin.ts';
import { mcpFeature } from './features/mcp.ts';
import { operationsFeature } from './features/operations.ts';
import { promptsFeature } from './features/prompts.ts';
import { rowsFeature } from './features/rows.ts';
import { runsFeature } from './features/runs.ts';
import { searchFeature } from './features/search.ts';
import { secretsFeature } from './features/secrets.ts';
import { sequencesFeature } from './features/sequences.ts';
import { tablesFeature } from './features/tables.ts';
import { tasksFeature } from './features/tasks.ts';
import { webhooksFeature } from './features/webhooks.ts';

/**
 * The table of contents of the service: every feature, each declared once in
 * app/features/<feature>.ts. A new feature adds its folders and one line here. Operations
 * comes first: its metrics hook times the routes registered after it.
 */
export const features: readonly Feature[] = [
  operationsFeature,
  accountsFeature,
  contentFeature,
  tablesFeature,
  columnsFeature,
  secretsFeature,
  promptsFeature,
  rowsFeature,
  runsFeature,
  autorunFeature,
  leadsFeature,
  sequencesFeature,
  tasksFeature,
  webhooksFeature,
  searchFeature,
  linkedinFeature,
  mcpFeature,
  consoleFeature(() => service.registry),
];

/** The service: one event registry from the features' streams, their read models and routes. */
export const service = compose(features);
