import { z } from 'zod';
import type { ConsoleContext } from '../../services/console/context.ts';
import { RebuildBusyError, RebuildRefusedError } from '../../services/console/rebuilds.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError } from '../../src/errors.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import {
  abandonRebuild,
  ProjectionAdminError,
  retryProjection,
  skipEvent,
} from '../../src/projection/repair-admin.ts';
import { consoleActor } from './actor.ts';

export const REFUSE_KEY = { refuse: 'a console form, guarded by its CSRF token' };

const params = z.object({ name: z.string().max(200) });
const form = z.object({ _csrf: z.string().max(100).optional() });

/**
 * The projection actions of `stk admin projections` from the console, with the same code and the same
 * audit (src/projection/): a blue/green rebuild (run in this process, in the background), abandoning
 * an interrupted one, and retrying or skipping the poison event a projection stopped at. Each answers
 * with a redirect to the projection's page (303), where the result shows.
 */
export function projectionActionRoutes(app: ZodApp, deps: ServiceDeps, ctx: ConsoleContext): void {
  const route = (
    action: string,
    body: z.ZodObject,
    run: (name: string, actor: string, body: Record<string, string>) => Promise<string>,
  ) =>
    app.post(
      `/admin/projections/:name/${action}`,
      { config: { access: 'operator', idempotency: REFUSE_KEY }, schema: { hide: true, params, body } },
      async (request, reply) => {
        const { name } = request.params;
        if (!ctx.projection(name)) throw new AppError('not_found', `No projection ${name}.`);
        const actor = consoleActor(request);
        let done: string;
        try {
          done = await run(name, actor, request.body as Record<string, string>);
        } catch (error) {
          if (error instanceof RebuildBusyError || error instanceof RebuildRefusedError)
            throw new AppError('conflict', error.message);
          if (error instanceof ProjectionAdminError) throw new AppError('invalid_transition', error.message);
          throw error;
        }
        request.log.info({ operator: request.operator?.name, projection: name, action }, 'console action');
        return reply.redirect(`/admin/projections/${encodeURIComponent(name)}?done=${done}`, 303);
      },
    );

  route('rebuild', form, async (name, actor) => {
    await ctx.rebuilds.start(ctx.projection(name)!, actor, {
      pool: deps.backgroundPool ?? deps.pool,
      logger: deps.logger,
    });
    return 'rebuild-started';
  });
  route('abandon-rebuild', form, async (name, actor) => {
    if (!(await abandonRebuild(deps.pool, name, actor)))
      throw new ProjectionAdminError(`${name} has no rebuild under way`);
    return 'rebuild-abandoned';
  });
  route('retry', form, async (name, actor) => {
    await retryProjection(deps.pool, name, actor);
    return 'retried';
  });
  route('skip', form.extend({ eventId: z.string().max(100) }), async (name, actor, body) => {
    await skipEvent(deps.store, deps.pool, ctx.projection(name)!, body.eventId!, actor);
    return 'skipped';
  });
}
