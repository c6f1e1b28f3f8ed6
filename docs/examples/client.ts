/**
 * A client of the stk API, typed from its OpenAPI document (docs/openapi.md):
 *
 *   npx openapi-typescript https://<your host>/openapi.json -o api.ts
 *   npm install openapi-fetch
 *
 * It bootstraps an account, creates a table with an input column and an http_request column,
 * inserts rows, estimates and runs the column, and reads the rows back. The test suite
 * (test/integration/kernel/generated-client.test.ts) generates api.ts from the document the service
 * serves, type-checks this file against it, and runs it against the service.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

type Row = components['schemas']['Row'];
type Run = components['schemas']['Run'];

/** The answer's data, or an Error saying which call failed and the problem it answered. */
function ok<T>(call: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) {
    const problem = JSON.stringify(answer.error);
    throw new Error(`${call}: ${answer.response.status} ${problem}`);
  }
  return answer.data;
}

export interface Tour {
  tableId: string;
  run: Run;
  rows: Row[];
}

/**
 * The tour: `baseUrl` is the service, `target` an HTTP server the http_request column calls for each
 * row (GET <target>/r?n=<the row's n>), answering JSON.
 */
export async function tour(baseUrl: string, target: string, email: string): Promise<Tour> {
  const anonymous = createClient<paths>({ baseUrl });
  const account = ok(
    'bootstrapAccount',
    await anonymous.POST('/api/auth/agent-bootstrap', {
      body: { email, password: 'a long enough password', organization_name: 'Example', first_name: 'Ada' },
    }),
  );
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${account.apiKey}` } });

  const table = ok('createTable', await api.POST('/api/tables', { body: { name: 'Lookups' } }));
  const tableId = table.id;
  const params = { path: { tableId } };
  ok(
    'createColumn n',
    await api.POST('/api/tables/{tableId}/columns', {
      params,
      body: { label: 'n', key: 'n', kind: 'input', dataType: 'text' },
    }),
  );
  const result = ok(
    'createColumn result',
    await api.POST('/api/tables/{tableId}/columns', {
      params,
      body: {
        label: 'Result',
        key: 'result',
        kind: 'enrichment',
        dataType: 'json',
        config: { provider: 'http_request', method: 'GET', url: `${target}/r?n={{n}}` },
      },
    }),
  );

  // A field misspelled in a provider's config does not compile, and the service refuses it (400).
  const misspelled = await api.POST('/api/tables/{tableId}/columns', {
    params,
    body: {
      label: 'Typo',
      kind: 'enrichment',
      dataType: 'json',
      // @ts-expect-error `methd` is no field of an http_request config
      config: { provider: 'http_request', methd: 'GET', url: `${target}/r` },
    },
  });
  if (misspelled.response.status !== 400) throw new Error(`a misspelled config: ${misspelled.response.status}`);

  ok(
    'insertRows',
    await api.POST('/api/tables/{tableId}/rows', {
      params,
      body: { rows: [{ cells: { n: '1' } }, { cells: { n: '2' } }, { cells: { n: '3' } }] },
    }),
  );

  const column = { params: { path: { tableId, columnId: result.id } } };
  const estimate = ok(
    'estimateColumnRun',
    await api.POST('/api/tables/{tableId}/columns/{columnId}/estimate', { ...column, body: { scope: 'all' } }),
  );
  if (estimate.eligible !== 3 || !estimate.sufficient) throw new Error(`estimate: ${JSON.stringify(estimate)}`);

  let run = ok(
    'startColumnRun',
    await api.POST('/api/tables/{tableId}/columns/{columnId}/run', { ...column, body: { scope: 'all' } }),
  );
  const ended: Run['status'][] = ['succeeded', 'partially_succeeded', 'failed', 'stopped'];
  for (let i = 0; i < 600 && !ended.includes(run.status); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    run = ok('getRun', await api.GET('/api/runs/{runId}', { params: { path: { runId: run.id } } }));
  }

  const page = ok('listRows', await api.GET('/api/tables/{tableId}/rows', { params }));
  return { tableId, run, rows: page.data };
}
