import { bootstrapAccountRoute } from '../commands/bootstrap-account.ts';
import { issueApiKeyRoute } from '../commands/issue-api-key.ts';
import { revokeApiKeyRoute } from '../commands/revoke-api-key.ts';
import { syncRoutes } from '../commands/sync-articles.ts';
import { apiKeysProjection } from '../projections/api-keys.ts';
import { organizationsProjection } from '../projections/organizations.ts';
import { siteContentProjection } from '../projections/site-content.ts';
import { usersProjection } from '../projections/users.ts';
import { blogIndexRoutes } from '../queries/blog-index.ts';
import { blogPageRoutes } from '../queries/blog-page.ts';
import { listApiKeysRoute } from '../queries/list-api-keys.ts';
import { meRoute } from '../queries/me.ts';
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
];

export const routeModules: RouteModule[] = [
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
];
