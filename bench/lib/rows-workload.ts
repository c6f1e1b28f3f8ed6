import type { FilterObject } from '../../src/domain/columns/filter-object.ts';
import type { RunCondition } from '../../src/domain/columns/run-condition.ts';

/**
 * The rows benchmark's table: 10 columns of every common type, rows drawn from a seeded generator so
 * that every run imports the same data, and the predicates both sides of each comparison evaluate.
 */
export const COLUMN_SPECS: Record<string, string> = {
  name: 'text',
  email: 'email',
  company: 'text',
  city: 'text',
  score: 'number',
  revenue: 'number',
  active: 'boolean',
  signed: 'date',
  site: 'url',
  data: 'json',
};

const CITIES = ['Paris', 'Berlin', 'Lisbon', 'Oslo', 'Austin', 'Osaka', 'Lima', 'Accra'];
const WORDS = ['acme', 'Apex', 'borealis', 'Cobalt', 'delta', 'Argent', 'ember', 'Atlas', 'fjord', 'Granite'];

/** A small, fast, seeded generator (mulberry32): the same rows every run. */
export function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DAY = 86_400_000;
export const EPOCH = Date.UTC(2015, 0, 1);

/**
 * Row `i` drawn from `next`, by column key: about one cell in twenty left out (missing), but the one
 * named `keep`; `timeOfDay` puts the date at a time of its day, not at midnight.
 */
export function drawRow(
  next: () => number,
  i: number,
  options: { timeOfDay?: boolean; keep?: string } = {},
): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const company = `${pick(WORDS)} ${pick(WORDS)}`;
  const cells: Record<string, unknown> = {
    name: `Person ${i} ${pick(WORDS)}`,
    email: `p${i}@${pick(WORDS).toLowerCase()}.example`,
    company,
    city: pick(CITIES),
    score: Math.round(next() * 1000) / 10,
    revenue: Math.round(next() * 100_000),
    active: next() < 0.6,
    signed: new Date(
      EPOCH + Math.floor(next() * 3650) * DAY + (options.timeOfDay ? Math.floor(next() * DAY) : 0),
    ).toISOString(),
    site: `https://${company.replace(' ', '-').toLowerCase()}.example/${i}`,
    data: { employees: Math.floor(next() * 5000), tags: [pick(WORDS), pick(WORDS)] },
  };
  for (const key of Object.keys(cells)) if (key !== options.keep && next() < 0.05) delete cells[key];
  return cells;
}

/** The first `count` rows of the data set, drawn one after the other from one seeded generator. */
export function makeRows(count: number, seed = 7): Record<string, unknown>[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => drawRow(next, i));
}

/** The list's 10-rule filter (AND) and its sort. */
export const LIST_FILTER: FilterObject = {
  mode: 'AND',
  filters: [
    { columnKey: 'score', operator: 'greaterThan', value: 10 },
    { columnKey: 'score', operator: 'lessThan', value: 95 },
    { columnKey: 'active', operator: 'isTrue' },
    { columnKey: 'city', operator: 'notEquals', value: 'paris' },
    { columnKey: 'name', operator: 'isNotEmpty' },
    { columnKey: 'email', operator: 'contains', value: '@' },
    { columnKey: 'company', operator: 'startsWith', value: 'a' },
    { columnKey: 'signed', operator: 'after', value: '2016-01-01' },
    { columnKey: 'revenue', operator: 'greaterThanOrEqual', value: 1000 },
    { columnKey: 'site', operator: 'isNotEmpty' },
  ],
};
export const LIST_SORT = '-score,name';

/**
 * The same list in hand-written SQL, as someone who knows the data would write it: the cells are
 * typed, so numbers are cast without looking, and a missing cell is simply NULL. `id(key)` names a
 * column's id as a parameter.
 */
export function handWrittenList(id: (key: string) => string): { where: string; order: string } {
  const text = (key: string) => `(r.cells->>${id(key)})`;
  const num = (key: string) => `(r.cells->>${id(key)})::numeric`;
  return {
    where: [
      `${num('score')} > 10`,
      `${num('score')} < 95`,
      `r.cells->${id('active')} = 'true'`,
      `lower(${text('city')} COLLATE pg_c_utf8) <> 'paris'`,
      `${text('name')} <> ''`,
      `strpos(lower(${text('email')} COLLATE pg_c_utf8), '@') > 0`,
      `starts_with(lower(${text('company')} COLLATE pg_c_utf8), 'a')`,
      `${text('signed')} > '2016-01-01T00:00:00.000Z'`,
      `${num('revenue')} >= 1000`,
      `${text('site')} <> ''`,
    ].join(' AND '),
    order: `${num('score')} DESC NULLS LAST, lower(${text('name')} COLLATE pg_c_utf8) NULLS LAST, r.id`,
  };
}

const leaf = (columnKey: string, operator: string, value: unknown, value2?: unknown): RunCondition =>
  ({
    type: 'condition',
    columnKey,
    operator,
    missingPolicy: 'false',
    value,
    ...(value2 === undefined ? {} : { value2 }),
  }) as RunCondition;

/** Ten groups of `any` over four leaves each, under one `all`, plus the groups: 51 nodes. */
export function estimateCondition(): RunCondition {
  const groups = Array.from(
    { length: 10 },
    (_, g): RunCondition => ({
      type: 'any',
      children: [
        leaf('score', 'greaterThan', 90 - g),
        leaf('city', 'equals', CITIES[g % CITIES.length]!.toLowerCase()),
        leaf('revenue', 'between', g * 1000, g * 1000 + 50_000),
        leaf('company', 'contains', WORDS[g]!.toLowerCase()),
      ],
    }),
  );
  return { type: 'all', children: groups };
}

/** The estimate's condition in hand-written SQL, over the same typed cells. */
export function handWrittenCondition(id: (key: string) => string): string {
  const text = (key: string) => `(r.cells->>${id(key)})`;
  const num = (key: string) => `(r.cells->>${id(key)})::numeric`;
  return Array.from({ length: 10 }, (_, g) =>
    [
      `${num('score')} > ${90 - g}`,
      `lower(${text('city')} COLLATE pg_c_utf8) = '${CITIES[g % CITIES.length]!.toLowerCase()}'`,
      `${num('revenue')} BETWEEN ${g * 1000} AND ${g * 1000 + 50_000}`,
      `strpos(lower(${text('company')} COLLATE pg_c_utf8), '${WORDS[g]!.toLowerCase()}') > 0`,
    ].join(' OR '),
  )
    .map((group) => `COALESCE(${group}, FALSE)`)
    .join(' AND ');
}
