import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isCalendarDay } from '../../../src/calendar.ts';
import { isIsoDate } from '../../../src/domain/columns/operators.ts';
import { isTimestamp } from '../../../src/http/pagination.ts';

test('isCalendarDay: the days each month has, 29 February in leap years only', () => {
  assert.ok(isCalendarDay(2024, 2, 29));
  assert.ok(isCalendarDay(2000, 2, 29));
  assert.ok(isCalendarDay(0, 2, 29));
  assert.ok(isCalendarDay(24, 2, 29));
  assert.ok(isCalendarDay(2024, 12, 31));
  assert.not.ok(isCalendarDay(2023, 2, 29));
  assert.not.ok(isCalendarDay(1900, 2, 29));
  assert.not.ok(isCalendarDay(2024, 2, 30));
  assert.not.ok(isCalendarDay(2024, 4, 31));
  assert.not.ok(isCalendarDay(2024, 13, 1));
  assert.not.ok(isCalendarDay(2024, 0, 1));
  assert.not.ok(isCalendarDay(2024, 1, 0));
});

test('isIsoDate: a real day and time, stored within years 0000-9999', () => {
  for (const ok of [
    '2024-02-29',
    '2024-01-01T23:59',
    '2024-01-01 00:00:59.123456789',
    '2024-01-01T10:00+0530',
  ]) {
    assert.ok(isIsoDate(ok), ok);
  }
  for (const no of ['2024-02-30', '2024-01-01T24:00Z', '9999-12-31T23:59:59-23:59', '2024-1-01', 20240101]) {
    assert.not.ok(isIsoDate(no), String(no));
  }
});

test('isTimestamp: one PostgreSQL takes, so a cursor holding it reads no 500', () => {
  assert.ok(isTimestamp('2024-02-29T10:00:00.123Z'));
  assert.ok(isTimestamp('2024-02-29 10:00:00.123456+00'));
  assert.ok(isTimestamp('0024-02-29T00:00:00Z'));
  assert.not.ok(isTimestamp('2024-02-30T00:00:00Z'));
  assert.not.ok(isTimestamp('0000-01-01T00:00:00Z'));
  assert.not.ok(isTimestamp('2024-01-01T00:00:00+16:00'));
});

test.run();
