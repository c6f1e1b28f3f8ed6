import type { Organization } from './fixtures.ts';

/**
 * A valid body for each operation with path parameters that takes one: the matrix sends it as B
 * with A's ids in the path, so that the ownership of the path's objects is the only thing wrong.
 */
export const PATH_BODIES: Record<string, (b: Organization) => unknown> = {
  'PATCH /api/tables/{tableId}': () => ({ name: 'Renamed by B' }),
  'POST /api/tables/{tableId}/columns': () => ({ label: 'By B', kind: 'input', dataType: 'text' }),
  'PATCH /api/tables/{tableId}/columns/{columnId}': () => ({ label: 'Relabelled by B' }),
  'POST /api/tables/{tableId}/columns/reorder': () => ({ columnIds: [] }),
  'PUT /api/secrets/{name}': () => ({ value: 'a value of B' }),
  'PATCH /api/prompts/{promptId}': () => ({ description: 'by B' }),
  'POST /api/prompts/{promptId}/render': () => ({ variables: { company: 'B' } }),
  'POST /api/tables/{tableId}/rows': () => ({ rows: [{ cells: { company: 'By B' } }] }),
  'PATCH /api/tables/{tableId}/rows/{rowId}': () => ({ cells: { company: 'By B' } }),
  'POST /api/tables/{tableId}/rows/delete': (b) => ({ rowIds: [b.ids.rowId] }),
  'POST /api/tables/{tableId}/rows/query': () => ({}),
  'POST /api/tables/{tableId}/columns/{columnId}/estimate': () => ({ scope: 'all' }),
  'POST /api/tables/{tableId}/columns/{columnId}/run': () => ({ scope: 'all' }),
  'PATCH /api/leads/{leadId}': () => ({ title: 'Set by B' }),
  'PATCH /api/sequences/{sequenceId}': () => ({ name: 'Renamed by B' }),
  'POST /api/sequences/{sequenceId}/enrollments': (b) => ({ leadIds: [b.ids.leadId] }),
  'PATCH /api/tasks/{taskId}': () => ({ title: 'Retitled by B' }),
  'POST /api/tasks/{taskId}/schedule-email': () => ({
    sendAt: new Date(Date.now() + 86_400_000).toISOString(),
  }),
  'PATCH /api/webhooks/{id}': () => ({ description: 'by B' }),
  'POST /api/webhooks/{id}/replay': () => ({
    since: new Date(Date.now() - 3_600_000).toISOString(),
    until: new Date().toISOString(),
  }),
  'POST /api/webhooks/{id}/test': () => ({ eventType: 'table.created' }),
};

/**
 * Operations whose path parameter names something of the caller's own namespace rather than an
 * object of one organization: B naming A's secret name writes B's own secret of that name. The
 * matrix still compares the answer with that of an unused name, then undoes it with the method
 * given, and compares A's reads with what they were.
 */
export const OWN_NAMESPACE: Record<string, string> = { 'PUT /api/secrets/{name}': 'DELETE' };

/**
 * Path parameters that name nothing of an organization, with the reason: the matrix leaves their
 * operations out (and prints that it did).
 */
export const PUBLIC_PARAMS: Record<string, string> = {
  slug: "blog articles are the service's public content, read without a key",
  handleOrUrl:
    "a LinkedIn handle or profile URL names a person's public profile at the provider, not an object of " +
    'an organization (what each organization is answered from its own cache: the search cache case)',
};

/**
 * A body case: B sends ids (or, `marker`, names) of A inside a body or a query; `a` names A's in one
 * request and unknown ones of the same form in the control.
 */
export interface BodyCase {
  label: string;
  method: string;
  /** As the document writes it; `{param}` takes B's own ids. */
  path: string;
  body?(b: Organization, a: (name: string) => string): unknown;
  query?(a: (name: string) => string): Record<string, string>;
  headers?(a: (name: string) => string): Record<string, string>;
  /** `own` (the default): B may store its own; `read`: nothing may be stored. */
  expect?: 'own' | 'read';
  /** Why A's answer may differ from the unknown one's (printed); it must still show nothing of A. */
  mayDiffer?: string;
}

/** The rows each organization imported with its Idempotency-Key (test/support/isolation/fixtures.ts). */
export const IMPORTED = { rows: [{ cells: { company: 'Imported' } }] };

/** A new column of B's table whose config names something of A. */
const columnCase = (
  label: string,
  kind: string,
  dataType: string,
  config: (a: (name: string) => string) => object,
): BodyCase => ({
  label,
  method: 'POST',
  path: '/api/tables/{tableId}/columns',
  body: (_, a) => ({ label: 'Linked', kind, dataType, config: config(a) }),
});

const sequenceStep = (promptTemplateId?: string) => ({
  type: 'email',
  waitDays: 0,
  subject: 'Hi',
  body: 'Hello',
  ...(promptTemplateId ? { promptTemplateId } : {}),
});

/**
 * Ids of A carried in bodies (and not in paths): each is sent twice, with A's id and with an unknown
 * one of the same form, and the two answers must read the same.
 */
export const BODY_CASES: BodyCase[] = [
  {
    label: "a member: the email address of A's member",
    method: 'POST',
    path: '/api/users',
    body: (_, a) => ({ email: a('memberEmail') }),
    mayDiffer:
      'an address is one login across the service, so adding one in use elsewhere is a 409 email_taken ' +
      '(as signing up with it is): the answer tells that the address is taken, not by whom',
  },
  {
    // Keys are per organization: A's key is a new one to B, not A's kept answer nor a 422.
    label: "a row import: A's Idempotency-Key",
    method: 'POST',
    path: '/api/tables/{tableId}/rows',
    headers: (a) => ({ 'idempotency-key': a('idempotencyKey') }),
    body: () => IMPORTED,
  },
  {
    label: 'lead search: q',
    method: 'GET',
    path: '/api/leads',
    query: (a) => ({ q: a('marker') }),
    expect: 'read',
  },
  {
    label: 'tables by name: name',
    method: 'GET',
    path: '/api/tables',
    query: (a) => ({ name: `Table ${a('marker')}` }),
    expect: 'read',
  },
  {
    label: 'task query: a leadId filter',
    method: 'POST',
    path: '/api/tasks/query',
    body: (_, a) => ({
      filter: { mode: 'AND', filters: [{ columnKey: 'leadId', operator: 'equals', value: a('leadId') }] },
    }),
    expect: 'read',
  },
  {
    label: 'task query: an enrollmentId filter',
    method: 'POST',
    path: '/api/tasks/query',
    body: (_, a) => ({
      filter: {
        mode: 'AND',
        filters: [{ columnKey: 'enrollmentId', operator: 'equals', value: a('enrollmentId') }],
      },
    }),
    expect: 'read',
  },
  {
    label: 'bulk task actions: taskIds',
    method: 'POST',
    path: '/api/tasks/bulk',
    body: (_, a) => ({ taskIds: [a('taskId')], action: 'complete' }),
  },
  {
    label: 'bulk task reassign: assigneeUserId',
    method: 'POST',
    path: '/api/tasks/bulk',
    body: (b, a) => ({ taskIds: [b.ids.taskId], action: 'reassign', assigneeUserId: a('userId') }),
  },
  {
    label: 'a task: leadId',
    method: 'POST',
    path: '/api/tasks',
    body: (_, a) => ({ title: 'B task', leadId: a('leadId') }),
  },
  {
    label: 'a task: assigneeUserId',
    method: 'POST',
    path: '/api/tasks',
    body: (_, a) => ({ title: 'B task', assigneeUserId: a('userId') }),
  },
  {
    label: 'a task edit: assigneeUserId',
    method: 'PATCH',
    path: '/api/tasks/{taskId}',
    body: (_, a) => ({ assigneeUserId: a('userId') }),
  },
  {
    label: 'enrollments: leadIds',
    method: 'POST',
    path: '/api/sequences/{sequenceId}/enrollments',
    body: (_, a) => ({ leadIds: [a('leadId')] }),
  },
  {
    label: 'enrollments: assigneeUserId',
    method: 'POST',
    path: '/api/sequences/{sequenceId}/enrollments',
    body: (b, a) => ({ leadIds: [b.ids.leadId], assigneeUserId: a('userId') }),
  },
  {
    label: 'enrollments: senderAccountIds',
    method: 'POST',
    path: '/api/sequences/{sequenceId}/enrollments',
    body: (b, a) => ({ leadIds: [b.ids.leadId], senderAccountIds: { email: a('senderAccountId') } }),
  },
  {
    label: 'a sender account: userId',
    method: 'POST',
    path: '/api/sender-accounts',
    body: (_, a) => ({ type: 'email', address: 'b-sender@example.com', userId: a('userId'), dailyLimit: 5 }),
  },
  {
    label: 'a sequence: sourceTableId',
    method: 'POST',
    path: '/api/sequences',
    body: (_, a) => ({ name: 'B sequence', sourceTableId: a('tableId'), steps: [sequenceStep()] }),
  },
  {
    label: 'a sequence edit: sourceTableId',
    method: 'PATCH',
    path: '/api/sequences/{sequenceId}',
    body: (_, a) => ({ sourceTableId: a('tableId') }),
  },
  {
    label: 'a sequence step: promptTemplateId',
    method: 'POST',
    path: '/api/sequences',
    body: (_, a) => ({ name: 'B sequence', steps: [sequenceStep(a('promptId'))] }),
  },
  {
    label: 'run scope: rowIds',
    method: 'POST',
    path: '/api/tables/{tableId}/columns/{columnId}/estimate',
    body: (_, a) => ({ scope: 'selected', rowIds: [a('rowId')] }),
  },
  {
    label: 'row deletion: rowIds',
    method: 'POST',
    path: '/api/tables/{tableId}/rows/delete',
    body: (_, a) => ({ rowIds: [a('rowId')] }),
  },
  {
    label: 'column reorder: columnIds',
    method: 'POST',
    path: '/api/tables/{tableId}/columns/reorder',
    body: (b, a) => ({ columnIds: [b.ids.columnId, a('columnId')] }),
  },
  columnCase('a sync_to_table column: destinationTableId', 'action', 'json', (a) => ({
    provider: 'sync_to_table',
    destinationTableId: a('tableId'),
  })),
  columnCase('an add_to_sequence column: sequenceId', 'action', 'json', (a) => ({
    provider: 'add_to_sequence',
    sequenceId: a('sequenceId'),
    sourceLeadColumn: 'company',
  })),
  columnCase('an llm column: promptTemplateId', 'enrichment', 'text', (a) => ({
    provider: 'llm',
    promptTemplateId: a('promptId'),
  })),
];

/**
 * Operations without path parameters whose bodies name no object of an organization (or whose ids
 * are covered by BODY_CASES), with the reason; any other such operation fails the matrix.
 */
export const NO_FOREIGN_IDS: Record<string, string> = {
  'POST /api/auth/agent-bootstrap': 'makes a new organization',
  'POST /api/auth/login': 'an email and password, no ids',
  'POST /api/keys': 'a name and scopes',
  'POST /api/users': 'an email address: covered by BODY_CASES',
  'POST /api/content/sync': 'the cron secret, no organization',
  'POST /api/tables': 'a name',
  'POST /api/prompts': 'a name and a template',
  'POST /api/leads': 'a person, no ids',
  'POST /api/sequences': 'ids covered by BODY_CASES',
  'POST /api/sender-accounts': 'userId covered by BODY_CASES',
  'POST /api/tasks': 'ids covered by BODY_CASES',
  'POST /api/tasks/bulk': 'ids covered by BODY_CASES',
  'POST /api/tasks/query': "a filter over the caller's own tasks (called as B by the list check)",
  'POST /api/webhooks': 'a URL and event types',
  // The search routes ask an outside provider about public data: no id of an organization goes in.
  // What they keep (the per-organization cache, the charge) is the search cache case's to check.
  'POST /api/search/web': 'a query for SearXNG, no ids',
  'POST /api/search/news': 'a query for SearXNG, no ids',
  'POST /api/search/companies': "a query, a domain or a company's name for the people-data provider, no ids",
  'POST /api/search/people':
    'a query, a domain, a name or a LinkedIn URL for the people-data provider, no ids',
  'POST /api/linkedin/search': 'a query and a type for the LinkedIn data provider, no ids',
};

/** Operations without path parameters that list or search: B calls them with these bodies. */
export const LIST_BODIES: Record<string, unknown> = {
  'POST /api/tasks/query': {},
};
