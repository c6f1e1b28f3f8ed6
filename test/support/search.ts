import { Writable } from 'node:stream';
import { suite } from 'uvu';
import { service } from '../../app/modules.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { loadState } from '../../src/command.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { bearer, bootstrapAccount, call } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';

export interface SearchContext {
  t: TestApp;
  key: string;
  organizationId: string;
  /** Every log line the service wrote (at debug), to look for what must not be in it. */
  log: string[];
  /** The service's clock runs `offset` ms ahead of real time: tests move it past the cache's life. */
  offset: number;
}

/**
 * A suite over the whole service with its workers, its providers configured by `env` (read at start:
 * the fakes are started first), logging at debug into `log`, and one bootstrapped account.
 */
export function searchSuite<C extends SearchContext>(
  name: string,
  env: (ctx: C) => Promise<Record<string, string>> | Record<string, string>,
  after: (ctx: C) => Promise<void> = async () => {},
) {
  const test = suite<C>(name);
  test.before(async (ctx) => {
    ctx.offset = 0;
    ctx.log = [];
    const logTo = new Writable({
      write(chunk, _encoding, done) {
        ctx.log.push(String(chunk));
        done();
      },
    });
    ctx.t = await startTestApp({
      projections: service.projections,
      routes: service.routes,
      workers: service.workers,
      authenticator: createAuthenticator,
      clock: () => new Date(Date.now() + ctx.offset),
      logTo,
      env: { LOG_LEVEL: 'debug', SEARCH_PROVIDER_TIMEOUT_MS: '1000', ...(await env(ctx)) },
    });
    const account = await bootstrapAccount(ctx.t.app);
    ctx.key = account.apiKey;
    ctx.organizationId = account.organizationId;
  });
  test.after(async (ctx) => {
    await ctx.t.close();
    await after(ctx);
  });
  return test;
}

/** The organization's credit balance, by its stream (what a reservation decides on). */
export async function balanceOf(ctx: SearchContext): Promise<number> {
  const { state } = await loadState(
    ctx.t.deps.store,
    organizationStream.name(ctx.organizationId),
    organizationStream,
  );
  return state.balance;
}

/** The credit events of the organization after revision `from`: type and amount. */
export async function creditEventsSince(ctx: SearchContext, from: number) {
  const events = await ctx.t.deps.store.readStream(organizationStream.name(ctx.organizationId));
  return events.slice(from).map((e) => ({
    type: e.type,
    amount: (e.data as { amount?: number }).amount,
    runId: (e.data as { runId?: string }).runId,
  }));
}

/** How many events the organization stream has now. */
export const creditEventCount = async (ctx: SearchContext) =>
  (await ctx.t.deps.store.readStream(organizationStream.name(ctx.organizationId))).length;

/** Spends the whole balance (a reservation nothing will settle), so that an uncached search gets 402. */
export async function spendAllCredits(ctx: SearchContext) {
  const balance = await balanceOf(ctx);
  if (balance <= 0) return;
  await ctx.t.deps.store.append(organizationStream.name(ctx.organizationId), [
    {
      type: 'CreditsReserved',
      data: { organizationId: ctx.organizationId, runId: 'run_drain', amount: balance },
    },
  ]);
}

/** One call of the API with the suite's key. */
export const api = (ctx: SearchContext, method: string, path: string, body?: unknown) =>
  call(ctx.t.app, method, path, { headers: bearer(ctx.key), ...(body === undefined ? {} : { body }) });

/** The service's environment for the three fake providers (their keys as the fakes were started with). */
export const providersEnv = (fakes: {
  searxng: { url: string };
  pdl: { url: string };
  unipile: { url: string };
}) => ({
  SEARXNG_URL: fakes.searxng.url,
  PEOPLE_DATA_URL: fakes.pdl.url,
  PEOPLE_DATA_API_KEY: 'pdl-key',
  LINKEDIN_DATA_URL: fakes.unipile.url,
  LINKEDIN_DATA_API_KEY: 'unipile-key',
});
