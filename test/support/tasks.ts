import { suite } from 'uvu';
import { service } from '../../app/modules.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { bearer, bootstrapAccount, call, type Target } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';

export interface TasksContext {
  t: TestApp;
  key: string;
  /**
   * The service's clock runs `offset` ms ahead of real time: tests move it (`advance`) instead of
   * sleeping. (It keeps running: work items enqueued without a run time take the database's.)
   */
  offset: number;
  advance: (ms: number) => void;
}

export const DAY_MS = 24 * 3_600_000;

/** A suite over the whole service with its workers and a clock the tests move; `env` is read at start. */
export function tasksSuite(
  name: string,
  env: () => Promise<Record<string, string>> | Record<string, string> = () => ({}),
) {
  const test = suite<TasksContext>(name);
  test.before(async (ctx) => {
    ctx.offset = 0;
    ctx.advance = (ms) => {
      ctx.offset += ms;
      ctx.t.deps.work?.nudge();
    };
    ctx.t = await startTestApp({
      projections: service.projections,
      routes: service.routes,
      workers: service.workers,
      authenticator: createAuthenticator,
      clock: () => new Date(Date.now() + ctx.offset),
      // STK_TEST_LOG_LEVEL=error shows the server's side of a failing test.
      env: {
        ...(process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {}),
        ...(await env()),
      },
    });
    ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
  });
  test.after(async (ctx) => {
    await ctx.t.close();
  });
  return test;
}

/** The tasks of an enrollment, by step. */
export async function enrollmentTasks(target: Target, key: string, enrollmentId: string) {
  const res = await call(target, 'POST', '/api/tasks/query', {
    headers: bearer(key),
    body: {
      filter: {
        mode: 'AND',
        filters: [{ columnKey: 'enrollmentId', operator: 'equals', value: enrollmentId }],
      },
      sort: 'stepIndex',
    },
  });
  if (res.status !== 200) throw new Error(`query: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as {
    id: string;
    stepIndex: number;
    status: string;
    dueAt: string;
    [k: string]: unknown;
  }[];
}
