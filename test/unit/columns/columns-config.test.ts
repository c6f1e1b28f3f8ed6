import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateColumnConfig } from '../../../processes/runs/providers/index.ts';
import type { ConfigContext } from '../../../src/domain/columns/config/index.ts';

const test = suite('columns: provider config validation (every failure names its path)');

const ctx: ConfigContext = {
  organizationId: 'o1',
  columns: [
    { id: 'col_domain', key: 'domain', dataType: 'url' },
    { id: 'col_emails', key: 'emails', dataType: 'json' },
    { id: 'col_email', key: 'email', dataType: 'email' },
    { id: 'col_people', key: 'people', dataType: 'json' },
    { id: 'col_first', key: 'first_name', dataType: 'text' },
  ],
  tables: new Map([
    ['tbl_mine', 'o1'],
    ['tbl_theirs', 'o2'],
    ['tbl_gone', undefined],
  ]),
};

const ok = (config: object) => {
  const result = validateColumnConfig(config, ctx);
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.errors));
  return result.ok ? result.config : {};
};
const paths = (config: unknown) => {
  const result = validateColumnConfig(config, ctx);
  assert.not.ok(result.ok, `expected a refusal of ${JSON.stringify(config)}`);
  return result.ok ? [] : result.errors.map((e) => e.path).sort();
};

const http = { provider: 'http_request', url: 'https://api.test/{{domain}}', method: 'POST' };
const sync = { provider: 'sync_to_table', destinationTableId: 'tbl_mine' };
const crm = { provider: 'add_to_crm' };
const sequence = { provider: 'add_to_sequence', sequenceId: 'seq_1', sourceLeadColumn: 'email' };

test('config must be an object', () => {
  assert.equal(paths(null), ['config']);
  assert.equal(paths([]), ['config']);
});

test('http_request: methods, timeout 1-300 (default 30), unknown keys', () => {
  assert.is(ok(http).timeoutSeconds, 30);
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) ok({ ...http, method });
  assert.equal(paths({ ...http, method: 'FETCH' }), ['config.method']);
  assert.equal(paths({ provider: 'http_request', url: 'https://x.test' }), ['config.method']);
  ok({ ...http, timeoutSeconds: 1 });
  ok({ ...http, timeoutSeconds: 300 });
  assert.equal(paths({ ...http, timeoutSeconds: 0 }), ['config.timeoutSeconds']);
  assert.equal(paths({ ...http, timeoutSeconds: 301 }), ['config.timeoutSeconds']);
  assert.equal(paths({ ...http, retries: 3 }), ['config.retries']);
  ok({ ...http, concurrency: 64 });
  assert.is(ok(http).concurrency, undefined, 'absent: the run uses its default');
  for (const concurrency of [0, 65, 2.5])
    assert.equal(paths({ ...http, concurrency }), ['config.concurrency']);
});

test('http_request: placeholders in url, headers and body name columns; secrets pass', () => {
  ok({ ...http, url: '{{secrets.base_url}}/v1/{{domain}}' });
  ok({ ...http, headers: { Authorization: 'Bearer {{secrets.token}}', 'X-Domain': '{{ domain }}' } });
  ok({ ...http, body: { q: '{{domain}}', nested: ['{{email}}', 3] } });
  ok({ ...http, body: 'plain {{first_name}}' });
  ok({ ...http, body: null });
  assert.equal(paths({ ...http, url: 'https://x.test/{{nope}}' }), ['config.url']);
  assert.equal(paths({ ...http, url: 'ftp://x.test' }), ['config.url']);
  assert.equal(paths({ ...http, headers: { 'X-Key': '{{missing}}' } }), ['config.headers.X-Key']);
  assert.equal(paths({ ...http, headers: { 'bad header': 'x' } }), ['config.headers.bad header']);
  assert.equal(paths({ ...http, body: { a: { b: ['{{nope}}'] } } }), ['config.body.a.b[0]']);
  assert.equal(paths({ ...http, body: 42 }), ['config.body']);
});

test('sync_to_table: destination of the same organization', () => {
  ok(sync);
  // Not looked up for this request (set earlier, tables never move): not checked again.
  ok({ ...sync, destinationTableId: 'tbl_elsewhere' });
  assert.equal(paths({ ...sync, destinationTableId: 'tbl_theirs' }), ['config.destinationTableId']);
  assert.equal(paths({ ...sync, destinationTableId: 'tbl_gone' }), ['config.destinationTableId']);
  assert.equal(paths({ provider: 'sync_to_table' }), ['config.destinationTableId']);
  assert.equal(paths({ ...sync, syncMode: 'batch', syncBehavior: 'move' }), [
    'config.syncBehavior',
    'config.syncMode',
  ]);
});

test('sync_to_table: list mode needs a JSON list source; listPath defaults to items', () => {
  const list = ok({ ...sync, syncMode: 'list', listSourceColumnId: 'col_people' });
  assert.is(list.listPath, 'items');
  assert.is(
    ok({ ...sync, syncMode: 'list', listSourceColumnId: 'col_people', listPath: 'data' }).listPath,
    'data',
  );
  assert.not.ok('listPath' in ok(sync));
  assert.equal(paths({ ...sync, syncMode: 'list' }), ['config.listSourceColumnId']);
  assert.equal(paths({ ...sync, syncMode: 'list', listSourceColumnId: 'col_nope' }), [
    'config.listSourceColumnId',
  ]);
  assert.equal(paths({ ...sync, syncMode: 'list', listSourceColumnId: 'col_domain' }), [
    'config.listSourceColumnId',
  ]);
});

test('sync_to_table: mappings name columns of the table; routes are checked like the top level', () => {
  ok({ ...sync, columnMappings: [{ sourceKey: 'domain', destKey: 'website' }] });
  assert.equal(paths({ ...sync, columnMappings: [{ sourceKey: 'nope', destKey: 'x' }] }), [
    'config.columnMappings[0].sourceKey',
  ]);
  assert.equal(paths({ ...sync, columnMappings: [{ destKey: 'x' }] }), [
    'config.columnMappings[0].sourceKey',
  ]);
  assert.equal(paths({ ...sync, columnMappings: [{ sourceScope: 'item', itemKey: 'name', destKey: 'x' }] }), [
    'config.columnMappings[0].sourceScope',
  ]);
  ok({
    ...sync,
    syncMode: 'list',
    listSourceColumnId: 'col_people',
    columnMappings: [{ sourceScope: 'item', itemKey: 'name', destKey: 'name' }],
  });
  assert.equal(
    paths({
      ...sync,
      routes: [
        {
          condition: { type: 'condition', columnKey: 'nope', operator: 'isEmpty', missingPolicy: 'true' },
          syncMode: 'list',
          columnMappings: [{ sourceKey: 'ghost', destKey: 'x' }],
        },
      ],
    }),
    [
      'config.routes[0].columnMappings[0].sourceKey',
      'config.routes[0].condition.columnKey',
      'config.routes[0].listSourceColumnId',
    ],
  );
  // A route inherits the top-level list source.
  ok({ ...sync, listSourceColumnId: 'col_people', routes: [{ syncMode: 'list' }] });
});

test('add_to_crm: field mappings name columns; a JSON source needs a path', () => {
  ok({
    ...crm,
    fieldMappings: {
      companyDomain: 'domain',
      firstName: 'first_name',
      emailAddresses: [{ column: 'email' }, { column: 'emails', path: 'work' }],
      phoneNumbers: [],
      common: { company: 'domain' },
      leadSources: [
        { kind: 'row', template: { email: 'email' } },
        {
          kind: 'array',
          sourceColumn: 'people',
          sourceArrayPath: 'items',
          template: { email: '__array_item.email' },
        },
      ],
    },
    sourceColumns: ['domain', 'email'],
  });
  assert.equal(paths({ ...crm, fieldMappings: { companyDomain: 'nope' } }), [
    'config.fieldMappings.companyDomain',
  ]);
  assert.equal(paths({ ...crm, fieldMappings: { emailAddresses: [{ column: 'emails' }] } }), [
    'config.fieldMappings.emailAddresses[0].column',
  ]);
  assert.equal(paths({ ...crm, fieldMappings: { leadSources: [{ kind: 'array' }] } }), [
    'config.fieldMappings.leadSources[0].sourceColumn',
  ]);
  assert.equal(
    paths({
      ...crm,
      fieldMappings: { leadSources: [{ kind: 'row', template: { e: '__array_item.email' } }] },
    }),
    ['config.fieldMappings.leadSources[0].template.e'],
  );
  assert.equal(paths({ ...crm, sourceColumns: ['domain', 'nope'] }), ['config.sourceColumns[1]']);
  assert.equal(paths({ ...crm, fieldMappings: { leadSources: [{ kind: 'tree' }] } }), [
    'config.fieldMappings.leadSources[0].kind',
  ]);
});

test('add_to_sequence: shape and routingMode; the lead column must exist', () => {
  ok({
    ...sequence,
    assignedToUserId: 'usr_1',
    skipActiveSequenceConflicts: true,
    senderAccountIds: { email: 'acc_1', linkedin: 'acc_2' },
    assignmentPlan: [{ assigneeUserId: 'usr_1', weight: 2 }, { assigneeUserId: 'usr_2' }],
    routingMode: 'weighted_round_robin',
  });
  ok({ ...sequence, routingMode: 'single' });
  ok({ ...sequence, routingMode: 'round_robin', assignmentPlan: [{ assigneeUserId: 'usr_1' }] });
  // A round robin over nobody routes nothing: refused when saved.
  assert.equal(paths({ ...sequence, routingMode: 'round_robin' }), ['config.assignmentPlan']);
  assert.equal(paths({ ...sequence, routingMode: 'random' }), ['config.routingMode']);
  assert.equal(paths({ provider: 'add_to_sequence' }), ['config.sequenceId', 'config.sourceLeadColumn']);
  assert.equal(paths({ ...sequence, sourceLeadColumn: 'nope' }), ['config.sourceLeadColumn']);
  assert.equal(paths({ ...sequence, senderAccountIds: { sms: 'x' } }), ['config.senderAccountIds.sms']);
  assert.equal(paths({ ...sequence, assignmentPlan: [{ weight: -1 }] }), [
    'config.assignmentPlan[0].assigneeUserId',
    'config.assignmentPlan[0].weight',
  ]);
  assert.equal(paths({ ...sequence, skipActiveSequenceConflicts: 'yes' }), [
    'config.skipActiveSequenceConflicts',
  ]);
});

test('llm: known keys typed, the rest open; no provider: open; an unknown provider refused', () => {
  const llm = ok({
    provider: 'llm',
    mode: 'basic',
    promptSource: 'generated',
    llmLane: 'very_fast',
    temperature: 0.2,
  });
  assert.is(llm.temperature, 0.2);
  assert.equal(paths({ provider: 'llm', mode: 3 }), ['config.mode']);
  // A prompt may name a column that does not exist yet.
  ok({ provider: 'llm', prompt: 'Summarize {{domain}} and {{future_column}}' });
  // A provider the registry does not know is refused (issue 33): it could never run.
  assert.equal(paths({ provider: 'lead_finder', anything: { goes: true } }), ['config.provider']);
  ok({});
  assert.equal(paths({ provider: 'Bad Provider' }), ['config.provider']);
});

test('run condition inside any config: columns must exist; key and id must agree; jsonPath needs JSON', () => {
  const leaf = { type: 'condition', operator: 'isNotEmpty', missingPolicy: 'unknown' };
  ok({ runCondition: { ...leaf, columnId: 'col_domain' } });
  ok({ runCondition: { ...leaf, columnId: 'col_domain', columnKey: 'domain' } });
  ok({ runCondition: { ...leaf, columnKey: 'people', jsonPath: '$.items[0].name' } });
  assert.equal(paths({ runCondition: { ...leaf, columnId: 'col_domain', columnKey: 'email' } }), [
    'config.runCondition.columnId',
  ]);
  assert.equal(paths({ runCondition: { ...leaf, columnId: 'col_nope' } }), ['config.runCondition.columnId']);
  assert.equal(paths({ runCondition: { ...leaf, columnKey: 'domain', jsonPath: 'a.b' } }), [
    'config.runCondition.columnKey',
  ]);
  assert.equal(paths({ ...http, runCondition: { ...leaf } }), ['config.runCondition.columnKey']);
});

test.run();
