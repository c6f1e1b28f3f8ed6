import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../app/modules.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { type BootstrappedAccount, bearer, bootstrapAccount, call, type Target } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';

/** A fresh master key, as `openssl rand -base64 32` makes one. */
export const newMasterKeyText = () => randomBytes(32).toString('base64');

export interface SecretsContext {
  t: TestApp;
  /** An all-scopes account, and one of another organization. */
  account: BootstrappedAccount;
  other: BootstrappedAccount;
  key: string;
  otherKey: string;
  /** SECRETS_MASTER_KEY of the app, and its DATA_DIR (a temporary directory). */
  masterKey: string;
  dataDir: string;
  /** Every line the app logged, at trace level. */
  lines: string[];
  /** Every secret value the suite has sent: none may show up in the log. */
  values: string[];
  /** A new value, remembered (`tail` ends it, for the masking rules). */
  value(tail?: string): string;
}

/**
 * A suite over the whole service with its log captured at trace level, two accounts of separate
 * organizations, and a last test, added by `runSecretsSuite`, that finds none of the suite's secret
 * values in anything the app logged.
 */
export function secretsSuite(name: string, env: Record<string, string> = {}): Test<SecretsContext> {
  const test = suite<SecretsContext>(name);
  test.before(async (ctx) => {
    ctx.lines = [];
    ctx.values = [];
    ctx.value = (tail = '') => {
      const value = `value-${randomBytes(9).toString('base64url')}${tail}`;
      ctx.values.push(value);
      return value;
    };
    ctx.masterKey = newMasterKeyText();
    ctx.dataDir = await mkdtemp(join(tmpdir(), 'stk-secrets-'));
    ctx.t = await startTestApp({
      projections: service.projections,
      routes: service.routes,
      authenticator: createAuthenticator,
      env: { LOG_LEVEL: 'trace', SECRETS_MASTER_KEY: ctx.masterKey, DATA_DIR: ctx.dataDir, ...env },
      logTo: { write: (line: string) => void ctx.lines.push(line) },
    });
    ctx.account = await bootstrapAccount(ctx.t.app);
    ctx.other = await bootstrapAccount(ctx.t.app);
    ctx.key = ctx.account.apiKey;
    ctx.otherKey = ctx.other.apiKey;
  });
  test.after(async (ctx) => {
    await ctx.t.close();
    await rm(ctx.dataDir, { recursive: true, force: true });
  });
  return test;
}

/** Adds the log check as the suite's last test, then runs the suite. */
export function runSecretsSuite(test: Test<SecretsContext>): void {
  test('the log, at trace level, holds none of the values this suite sent', ({ lines, values }) => {
    const log = lines.join('');
    // The capture works: the requests above left their lines.
    assert.ok(
      lines.some((l) => l.includes('"msg":"request"') && l.includes('/api/secrets')),
      'no request lines',
    );
    assert.ok(values.length > 0, 'the suite sent no value');
    for (const value of values) assert.not.ok(log.includes(value), `logged: ${value.slice(0, 10)}...`);
  });
  test.run();
}

export const secretPath = (name: string) => `/api/secrets/${name}`;

/** PUTs a value and returns the answer (any status). */
export const putSecret = (target: Target, apiKey: string, name: string, value: unknown) =>
  call(target, 'PUT', secretPath(name), { headers: bearer(apiKey), body: { value } });
