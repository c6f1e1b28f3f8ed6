import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { addColumn } from '../../../commands/columns/create-column.ts';
import { removeColumn } from '../../../commands/columns/delete-column.ts';
import { createTable } from '../../../commands/tables/create-table.ts';
import { renameTable } from '../../../commands/tables/rename-table.ts';
import type { TableEvent } from '../../../src/domain/tables/events.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const test = suite('tables: deciders of the table stream (given events, when command, then events)');

const created: TableEvent = {
  type: 'TableCreated',
  data: { tableId: 't1', organizationId: 'o1', name: 'Leads', at: '2024-01-01T00:00:00.000Z' },
};
const emailAdded: TableEvent = {
  type: 'ColumnAdded',
  data: { tableId: 't1', columnId: 'c1', key: 'email', kind: 'input', dataType: 'email' },
};
const emailRemoved: TableEvent = {
  type: 'ColumnRemoved',
  data: { tableId: 't1', columnId: 'c1', key: 'email' },
};

test('create: a new table; the same id twice is a conflict', () => {
  const command = { tableId: 't1', organizationId: 'o1', name: 'Leads' };
  given(createTable, [])
    .when(command)
    .thenEvents([{ type: 'TableCreated', data: { ...command, at: NOW.toISOString() } }]);
  given(createTable, [created]).when(command).refuses('conflict');
});

test('rename: a new name is recorded; the same name records nothing; no table is 404', () => {
  given(renameTable, [created])
    .when({ tableId: 't1', name: 'Prospects' })
    .thenEvents([
      { type: 'TableRenamed', data: { tableId: 't1', name: 'Prospects', at: NOW.toISOString() } },
    ]);
  given(renameTable, [created]).when({ tableId: 't1', name: 'Leads' }).thenEvents([]);
  given(renameTable, []).when({ tableId: 't1', name: 'x' }).refuses('not_found');
});

test('add column: claims the key; a taken key is column_key_taken; a freed key can be claimed again', () => {
  const claim = { tableId: 't1', columnId: 'c2', key: 'email', kind: 'input', dataType: 'text' } as const;
  given(addColumn, [created])
    .when(claim)
    .thenEvents([{ type: 'ColumnAdded', data: claim }]);
  const refusal = given(addColumn, [created, emailAdded]).when(claim).refuses('column_key_taken');
  assert.equal(refusal.extra.errors?.[0]?.path, 'key');
  given(addColumn, [created, emailAdded, emailRemoved])
    .when(claim)
    .thenEvents([{ type: 'ColumnAdded', data: claim }]);
  given(addColumn, []).when(claim).refuses('not_found');
});

test('remove column: 204-worthy when nobody refers to it, column_in_use listing referrers, 404 when absent', () => {
  given(removeColumn, [created, emailAdded])
    .when({ tableId: 't1', columnId: 'c1', referencedBy: [] })
    .thenEvents([emailRemoved]);
  const referencedBy = [{ id: 'c9', key: 'gate', paths: ['config.runCondition.columnKey'] }];
  const refusal = given(removeColumn, [created, emailAdded])
    .when({ tableId: 't1', columnId: 'c1', referencedBy })
    .refuses('column_in_use');
  assert.equal(refusal.extra.referencedBy, referencedBy);
  assert.match(refusal.detail, /gate/);
  given(removeColumn, [created, emailAdded, emailRemoved])
    .when({ tableId: 't1', columnId: 'c1', referencedBy: [] })
    .refuses('not_found');
  given(removeColumn, []).when({ tableId: 't1', columnId: 'c1', referencedBy: [] }).refuses('not_found');
});

test.run();
