import { consoleContext } from '../../services/console/context.ts';
import type { EventRegistry } from '../../src/event-store/registry.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { assetRoutes } from './assets.ts';
import { eventsPageRoutes } from './events-page.ts';
import { historyPageRoutes } from './history-page.ts';
import { liveRoutes } from './live.ts';
import { organizationsPageRoutes } from './organizations-page.ts';
import { projectionsPageRoutes } from './projections-page.ts';
import { inConsoleScope } from './scope.ts';
import { signInPageRoutes } from './sign-in-page.ts';
import { workPageRoutes } from './work-page.ts';

/**
 * The operator console's pages (/admin): server-rendered HTML that works without a script, made live
 * by /admin/assets/console.js (Server-Sent Events from /admin/live, uPlot charts). Every page needs an
 * operator session (`access: 'operator'`), but the sign-in page and the static files.
 */
export const consoleQueries = (registry: () => EventRegistry): RouteModule =>
  inConsoleScope(async (app, deps) => {
    const ctx = consoleContext(deps, registry);
    app.addHook('onClose', () => ctx.rebuilds.stop());
    assetRoutes(app);
    signInPageRoutes(app);
    projectionsPageRoutes(app, deps, ctx);
    eventsPageRoutes(app, deps, ctx);
    historyPageRoutes(app, deps, ctx);
    workPageRoutes(app, deps);
    organizationsPageRoutes(app, deps);
    liveRoutes(app, deps, ctx);
  });
