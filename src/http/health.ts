import { z } from 'zod';
import type { AppDeps, ZodApp } from './app.ts';

const check = z.object({ ok: z.boolean(), detail: z.string().optional() });

/** /readyz is public: a failing check says only that it failed; the driver's error (hosts, ports) goes to the log. */
async function probe(
  name: string,
  deps: AppDeps,
  fn: () => Promise<unknown>,
): Promise<z.infer<typeof check>> {
  try {
    await fn();
    return { ok: true };
  } catch (error) {
    deps.logger.warn({ err: error, check: name }, 'readiness check failed');
    return { ok: false, detail: 'unreachable' };
  }
}

/** Liveness (the process answers) and readiness (its database, event store and projections work). */
export function registerHealthRoutes(app: ZodApp, deps: AppDeps): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: { tags: ['health'], response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );

  const readiness = z.object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({ database: check, eventStore: check, projections: check }),
  });
  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: { tags: ['health'], response: { 200: readiness, 503: readiness } },
    },
    async (_request, reply) => {
      // Without the database, what this process's own runners know.
      let failed = deps.projections.failedHere();
      const [database, eventStore] = await Promise.all([
        // Reading the projections' checkpoint rows is the database check as well.
        probe('database', deps, async () => {
          failed = await deps.projections.failedNames();
        }),
        probe('eventStore', deps, () => deps.store.ping()),
      ]);
      const projections = failed.length
        ? { ok: false, detail: `failed: ${failed.join(', ')}` }
        : { ok: true };
      const ready = database.ok && eventStore.ok && projections.ok;
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: { database, eventStore, projections } });
    },
  );
}
