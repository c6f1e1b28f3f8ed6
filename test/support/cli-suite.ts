import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapAccount } from './accounts.ts';
import { type CliRun, runStk } from './cli.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';
import { type ServiceProcess, startServiceProcess } from './service-process.ts';

/** What an e2e suite of `stk` verbs holds: its database, the service process, a home and a key. */
export interface CliContext {
  db: TestDatabase;
  service: ServiceProcess;
  /** A directory of the suite's own: its stk config file, and any file a test writes. */
  dir: string;
  key: string;
}

export interface CliSuite<C extends CliContext> {
  test: Test<C>;
  /** Runs `stk` as the suite's user: its config file, the service's URL and its key. */
  stk(ctx: C, args: string[], input?: string): Promise<CliRun>;
  /** Runs a command that must succeed with --json and returns the parsed answer. */
  // biome-ignore lint/suspicious/noExplicitAny: the CLI prints arbitrary JSON that tests pick apart
  json(ctx: C, args: string[], input?: string): Promise<any>;
}

/**
 * An e2e suite of `stk` against the service running in its own process over a fresh database, with
 * one bootstrapped account. `env` adds to the service's environment.
 */
export function cliSuite<C extends CliContext = CliContext>(
  name: string,
  options: { env?: (ctx: C) => Record<string, string> } = {},
): CliSuite<C> {
  const test = suite<C>(name);
  test.before(async (ctx) => {
    ctx.db = await freshDatabase();
    ctx.dir = await mkdtemp(join(tmpdir(), 'stk-suite-'));
    ctx.service = await startServiceProcess({
      DATABASE_URL: ctx.db.url,
      LOG_LEVEL: 'warn',
      ...options.env?.(ctx),
    });
    ctx.key = (await bootstrapAccount(ctx.service.url)).apiKey;
  });
  test.after(async (ctx) => {
    await ctx.service?.stop();
    await rm(ctx.dir, { recursive: true, force: true });
    await ctx.db?.drop();
  });
  const stk = (ctx: C, args: string[], input?: string) =>
    runStk(args, {
      input,
      env: { STK_CONFIG: join(ctx.dir, 'config.json'), STK_BASE_URL: ctx.service.url, STK_API_KEY: ctx.key },
    });
  const json = async (ctx: C, args: string[], input?: string) => {
    const run = await stk(ctx, ['--json', ...args], input);
    assert.is(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };
  return { test, stk, json };
}
