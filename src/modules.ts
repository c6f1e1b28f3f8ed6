import { bootstrapAccountRoute } from '../commands/bootstrap-account.ts';
import { createColumnRoute } from '../commands/create-column.ts';
import { createTableRoute } from '../commands/create-table.ts';
import { deleteColumnRoute } from '../commands/delete-column.ts';
import { issueApiKeyRoute } from '../commands/issue-api-key.ts';
import { patchColumnRoute } from '../commands/patch-column.ts';
import { renameTableRoute } from '../commands/rename-table.ts';
import { reorderColumnsRoute } from '../commands/reorder-columns.ts';
import { revokeApiKeyRoute } from '../commands/revoke-api-key.ts';
import { syncRoutes } from '../commands/sync-articles.ts';
import { apiKeysProjection } from '../projections/api-keys.ts';
import { columnsProjection } from '../projections/columns.ts';
import { organizationsProjection } from '../projections/organizations.ts';
import { siteContentProjection } from '../projections/site-content.ts';
import { tablesProjection } from '../projections/tables.ts';
import { usersProjection } from '../projections/users.ts';
import { blogIndexRoutes } from '../queries/blog-index.ts';
import { blogPageRoutes } from '../queries/blog-page.ts';
import { columnHistoryRoute } from '../queries/column-history.ts';
import { getColumnRoute } from '../queries/get-column.ts';
import { getTableRoute } from '../queries/get-table.ts';
import { listApiKeysRoute } from '../queries/list-api-keys.ts';
import { listColumnsRoute } from '../queries/list-columns.ts';
import { listTablesRoute } from '../queries/list-tables.ts';
import { meRoute } from '../queries/me.ts';
import { metricsRoute } from '../queries/metrics.ts';
import { rssRoutes } from '../queries/rss.ts';
import { sitemapRoutes } from '../queries/sitemap.ts';
import type { RouteModule } from './http/app.ts';
import type { Projection } from './projection/types.ts';

/**
 * The table of contents of the service: every read model and every feature's routes. A new
 * feature adds its projection and its route modules here.
 */
export const projections: Projection[] = [
  // accounts and API keys
  apiKeysProjection,
  organizationsProjection,
  usersProjection,
  // content sync and the public blog
  siteContentProjection,
  // research tables and columns
  tablesProjection,
  columnsProjection,
];

export const routeModules: RouteModule[] = [
  // operations: Prometheus metrics (and the request-duration histogram of every route)
  metricsRoute,
  // accounts and API keys
  bootstrapAccountRoute,
  meRoute,
  listApiKeysRoute,
  issueApiKeyRoute,
  revokeApiKeyRoute,
  // content sync and the public blog
  syncRoutes(),
  blogPageRoutes,
  blogIndexRoutes,
  rssRoutes,
  sitemapRoutes,
  // research tables and columns
  createTableRoute,
  listTablesRoute,
  getTableRoute,
  renameTableRoute,
  createColumnRoute,
  listColumnsRoute,
  getColumnRoute,
  patchColumnRoute,
  deleteColumnRoute,
  reorderColumnsRoute,
  columnHistoryRoute,
];
