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
