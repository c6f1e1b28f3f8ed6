import { z } from 'zod';
import type { ServiceDeps } from '../deps.ts';
import { groupBy } from '../group-by.ts';
import type { ZodApp } from './routes.ts';

const check = z.object({ ok: z.boolean(), detail: z.string().optional() });

/** /readyz is public: a failing check says only that it failed; the driver's error (hosts, ports) goes to the log. */
async function probe(
  name: string,
  deps: ServiceDeps,
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
export function registerHealthRoutes(app: ZodApp, deps: ServiceDeps): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'checkLiveness',
        tags: ['health'],
        summary: 'Liveness: the process answers',
        description: 'Answers 200 while the process runs, whatever its database or event store do.',
        response: { 200: z.object({ status: z.literal('ok') }) },
        responseDescriptions: { 200: 'The process is alive' },
      },
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
      schema: {
        operationId: 'checkReadiness',
        tags: ['health'],
        summary: 'Readiness: the database, the event store and the read models serve',
        description:
          'A load balancer sends requests to a process while this answers 200. A failing check says only ' +
          'that it failed (the cause goes to the log), and which read models do not serve.',
        response: { 200: readiness, 503: readiness },
        responseDescriptions: {
          200: 'Ready: every check passed',
          503: 'Not ready: a check failed (see `checks`); send requests elsewhere',
        },
      },
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
      // Which read models do not serve, and why (their state); a stored failure of another process too.
      const down = new Map<string, string>(failed.map((name) => [name, 'failed']));
      for (const { name, state } of deps.projections.notServing()) down.set(name, state);
      const byState = groupBy(down, ([, state]) => state);
      const projections = down.size
        ? {
            ok: false,
            detail: [...byState]
              .map(([state, names]) => `${state}: ${names.map(([name]) => name).join(', ')}`)
              .join('; '),
          }
        : { ok: true };
      const ready = database.ok && eventStore.ok && projections.ok;
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: { database, eventStore, projections } });
    },
  );
}
