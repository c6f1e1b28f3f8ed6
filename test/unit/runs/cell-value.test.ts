import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cellValue } from '../../../src/domain/runs/cell-value.ts';

test('number: numbers, and text spelling a finite number, as numbers; nothing else', () => {
  assert.equal(cellValue('number', 3.5), { value: 3.5 });
  assert.equal(cellValue('number', ' 42 '), { value: 42 });
  assert.equal(cellValue('number', '-1e3'), { value: -1000 });
  for (const odd of ['', '1e999', 'NaN', '0x10', '4 apples', true, { a: 1 }, [1]])
    assert.ok('refused' in cellValue('number', odd), JSON.stringify(odd));
  assert.match(
    (cellValue('number', [1]) as { refused: string }).refused,
    /holds numbers and the answer is an array/,
  );
});

test('boolean: booleans, and the words true and false in any case', () => {
  assert.equal(cellValue('boolean', false), { value: false });
  assert.equal(cellValue('boolean', ' TRUE'), { value: true });
  assert.equal(cellValue('boolean', 'false'), { value: false });
  for (const odd of ['yes', 1, 0, 'truthy', {}])
    assert.ok('refused' in cellValue('boolean', odd), String(odd));
});

test('date: ISO 8601 dates, stored in UTC as the rows API stores them; other text refused', () => {
  assert.equal(cellValue('date', '2024-05-01'), { value: '2024-05-01T00:00:00.000Z' });
  assert.equal(cellValue('date', '2024-05-01T10:00:00+02:00'), { value: '2024-05-01T08:00:00.000Z' });
  for (const odd of ['yesterday', 20240501, '05/01/2024'])
    assert.ok('refused' in cellValue('date', odd), String(odd));
});

test('an empty answer stays empty, and the other types take any answer', () => {
  assert.equal(cellValue('number', null), { value: null });
  assert.equal(cellValue('text', { a: 1 }), { value: { a: 1 } });
  assert.equal(cellValue('json', [1, 'x']), { value: [1, 'x'] });
  assert.equal(cellValue('url', 7), { value: 7 });
});

test.run();
