import { consoleCommands } from '../../commands/console/index.ts';
import { LagSampler } from '../../processes/console/lag-sampler.ts';
import { consoleQueries } from '../../queries/console/index.ts';
import type { EventRegistry } from '../../src/event-store/registry.ts';
import type { Feature } from '../../src/feature.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** The lag sampler runs while the service's app does: started when it is ready, stopped when it closes. */
const lagSampling: RouteModule = (app, deps) => {
  const sampler = new LagSampler(deps);
  app.addHook('onReady', async () => sampler.start());
  app.addHook('onClose', async () => sampler.stop());
};

/**
 * The operator console in the browser (/admin, issue 36): projections, the event log, history, work
 * and organizations, for operators signed in with a credential `stk admin operators issue` gave them.
 * It reads every feature's streams (history replays each with its own definition), so app/modules.ts
 * hands it the service's registry.
 */
export const consoleFeature = (registry: () => EventRegistry): Feature => ({
  name: 'console',
  streams: [],
  commands: [consoleCommands(registry)],
  queries: [consoleQueries(registry), lagSampling],
  projections: [],
});
