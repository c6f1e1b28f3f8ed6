import { bootstrapAccountRoute } from '../commands/accounts/bootstrap-account.ts';
import { issueApiKeyRoute } from '../commands/accounts/issue-api-key.ts';
import { revokeApiKeyRoute } from '../commands/accounts/revoke-api-key.ts';
import { createColumnRoute } from '../commands/columns/create-column.ts';
import { deleteColumnRoute } from '../commands/columns/delete-column.ts';
import { patchColumnRoute } from '../commands/columns/patch-column.ts';
import { reorderColumnsRoute } from '../commands/columns/reorder-columns.ts';
import { syncRoutes } from '../commands/content/sync-articles.ts';
import { createTableRoute } from '../commands/tables/create-table.ts';
import { renameTableRoute } from '../commands/tables/rename-table.ts';
import { apiKeysProjection } from '../projections/accounts/api-keys.ts';
import { organizationsProjection } from '../projections/accounts/organizations.ts';
import { usersProjection } from '../projections/accounts/users.ts';
import { columnsProjection } from '../projections/columns/columns.ts';
import { siteContentProjection } from '../projections/content/site-content.ts';
import { tablesProjection } from '../projections/tables/tables.ts';
import { listApiKeysRoute } from '../queries/accounts/list-api-keys.ts';
import { meRoute } from '../queries/accounts/me.ts';
import { columnHistoryRoute } from '../queries/columns/column-history.ts';
import { getColumnRoute } from '../queries/columns/get-column.ts';
import { listColumnsRoute } from '../queries/columns/list-columns.ts';
import { blogIndexRoutes } from '../queries/content/blog-index.ts';
import { blogPageRoutes } from '../queries/content/blog-page.ts';
import { rssRoutes } from '../queries/content/rss.ts';
import { sitemapRoutes } from '../queries/content/sitemap.ts';
import { metricsRoute } from '../queries/operations/metrics.ts';
import { getTableRoute } from '../queries/tables/get-table.ts';
import { listTablesRoute } from '../queries/tables/list-tables.ts';
import type { RouteModule } from './http/app.ts';
import type { Projection } from './projection/types.ts';

/** A feature: its read models and its routes. */
export interface Feature {
  projections: Projection[];
  routes: RouteModule[];
}

export const accountsFeature: Feature = {
  projections: [apiKeysProjection, organizationsProjection, usersProjection],
  routes: [bootstrapAccountRoute, meRoute, listApiKeysRoute, issueApiKeyRoute, revokeApiKeyRoute],
};

/** Content sync and the public blog. */
export const contentFeature: Feature = {
  projections: [siteContentProjection],
  routes: [syncRoutes(), blogPageRoutes, blogIndexRoutes, rssRoutes, sitemapRoutes],
};

/** Research tables and their columns. */
export const tablesFeature: Feature = {
  projections: [tablesProjection, columnsProjection],
  routes: [
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
  ],
};

/** Operations: Prometheus metrics (and the request-duration histogram of every route, so it comes first). */
export const operationsFeature: Feature = { projections: [], routes: [metricsRoute] };

/**
 * The table of contents of the service: every feature's read models and routes. A new feature
 * defines its group above and joins this list.
 */
const features: Feature[] = [operationsFeature, accountsFeature, contentFeature, tablesFeature];

export const projections: Projection[] = features.flatMap((f) => f.projections);

export const routeModules: RouteModule[] = features.flatMap((f) => f.routes);
