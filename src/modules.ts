import { accountsFeature } from './domain/accounts/feature.ts';
import { autorunFeature } from './domain/autorun/feature.ts';
import { columnsFeature } from './domain/columns/feature.ts';
import { contentFeature } from './domain/content/feature.ts';
import { leadsFeature } from './domain/leads/feature.ts';
import { linkedinFeature } from './domain/linkedin/feature.ts';
import { operationsFeature } from './domain/operations/feature.ts';
import { promptsFeature } from './domain/prompts/feature.ts';
import { rowsFeature } from './domain/rows/feature.ts';
import { runsFeature } from './domain/runs/feature.ts';
import { searchFeature } from './domain/search/feature.ts';
import { secretsFeature } from './domain/secrets/feature.ts';
import { sequencesFeature } from './domain/sequences/feature.ts';
import { tablesFeature } from './domain/tables/feature.ts';
import { tasksFeature } from './domain/tasks/feature.ts';
import { webhooksFeature } from './domain/webhooks/feature.ts';
import { compose, type Feature } from './feature.ts';

/**
 * The table of contents of the service: every feature, each declared once in
 * src/domain/<feature>/feature.ts. A new feature adds its folders and one line here. Operations
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
];

/** The service: one event registry from the features' streams, their read models and routes. */
export const service = compose(features);
