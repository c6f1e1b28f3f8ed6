import { inConsoleScope } from '../../queries/console/scope.ts';
import { consoleContext } from '../../services/console/context.ts';
import type { EventRegistry } from '../../src/event-store/registry.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { grantCreditRoutes } from './grant-credits.ts';
import { projectionActionRoutes } from './projection-actions.ts';
import { signInCommands } from './sign-in.ts';

/** The console's state-changing routes (operator sessions and CSRF tokens; sign-in is public). */
export const consoleCommands = (registry: () => EventRegistry): RouteModule =>
  inConsoleScope(async (app, deps) => {
    const ctx = consoleContext(deps, registry);
    await signInCommands(app, deps);
    projectionActionRoutes(app, deps, ctx);
    grantCreditRoutes(app, deps);
  });
