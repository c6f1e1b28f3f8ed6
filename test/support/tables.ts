import { suite } from 'uvu';
import { service } from '../../app/modules.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { bearer, bootstrapAccount, call, type Target } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';

/** An app with every read model and route of the service (app/modules.ts) over a fresh database. */
export function startTablesApp(): Promise<TestApp> {
  return startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    // STK_TEST_LOG_LEVEL=error shows the server's side of a failing test.
    env: process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {},
  });
}

export interface TablesContext {
  t: TestApp;
  /** An all-scopes key of one organization, and its id. */
  key: string;
  keyId: string;
  organizationId: string;
  /** An all-scopes key of another organization: what it must not see. */
  otherKey: string;
}

/** A suite over one tables app shared by its tests, with two accounts in separate organizations. */
export function tablesSuite(name: string) {
  const test = suite<TablesContext>(name);
  test.before(async (ctx) => {
    ctx.t = await startTablesApp();
    const account = await bootstrapAccount(ctx.t.app);
    ctx.key = account.apiKey;
    ctx.keyId = account.keyId;
    ctx.organizationId = account.organizationId;
    ctx.otherKey = (await bootstrapAccount(ctx.t.app)).apiKey;
  });
  test.after(async (ctx) => {
    await ctx.t.close();
  });
  return test;
}

export const columnsPath = (tableId: string) => `/api/tables/${tableId}/columns`;

/** Creates a table and returns its id (throws on anything but 201). */
export async function createTable(target: Target, apiKey: string, name = 'Leads'): Promise<string> {
  const res = await call(target, 'POST', '/api/tables', { headers: bearer(apiKey), body: { name } });
  if (res.status !== 201)
    throw new Error(`creating a table failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Creates a column and returns it (throws on anything but 201). */
export async function createColumn(
  target: Target,
  apiKey: string,
  tableId: string,
  body: object,
  // biome-ignore lint/suspicious/noExplicitAny: a column is arbitrary JSON that tests pick apart
): Promise<any> {
  const res = await call(target, 'POST', columnsPath(tableId), { headers: bearer(apiKey), body });
  if (res.status !== 201)
    throw new Error(`creating a column failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A condition leaf on a column key (missingPolicy unknown). */
export const leaf = (columnKey: string, operator: string, extra: object = {}) => ({
  type: 'condition',
  columnKey,
  operator,
  missingPolicy: 'unknown',
  ...extra,
});
