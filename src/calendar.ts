/**
 * Whether the proleptic Gregorian calendar has this day (`month` 1-12), year 0000 included as ISO 8601
 * counts it. Plain arithmetic: `Date.UTC` reads years 0-99 as 1900-1999, and `Date.parse` rolls 30
 * February over to 1 March instead of refusing it.
 */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS[month - 1]!;
}
