import { blogIndexRoutes } from './blog-index.ts';
import { blogPageRoutes } from './blog-page.ts';
import { rssRoutes } from './rss.ts';
import { sitemapRoutes } from './sitemap.ts';

export const contentQueries = [blogPageRoutes, blogIndexRoutes, rssRoutes, sitemapRoutes];
