import { SECRET_NAME } from '../secrets/schemas.ts';

/**
 * A place in a column's config that names another column of the same table (by key or by id). The
 * same list serves two rules: a config may only name existing columns, and a column named by another
 * column's config cannot be deleted (409 column_in_use).
 */
export interface ColumnRef {
  /** Path inside the config, e.g. ['runCondition', 'children', 1, 'columnKey']. */
  path: PropertyKey[];
  key?: string;
  id?: string;
  /**
   * false: the reference only keeps the named column from being deleted (a prompt template may
   * mention a key the author will add later); true: it must name an existing column now.
   */
  mustExist: boolean;
  /** The named column must hold JSON (a list source, a condition with a jsonPath). */
  mustBeJson?: boolean;
  /** A JSON column has no single value to take here: naming one needs an explicit path. */
  jsonNeedsPath?: boolean;
}

/** The columns of a table as config validation sees them. */
export interface ColumnMember {
  id: string;
  key: string;
  dataType: string;
}

/** `{{ name }}`: what a template string inserts; the name without the spaces around it. */
export const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The `{{...}}` placeholders of a template string. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
}

/** `{{secrets.name}}` with a name a secret can have (anything else is a column key, or nothing). */
export const isSecretPlaceholder = (name: string) =>
  name.startsWith('secrets.') && SECRET_NAME.test(name.slice('secrets.'.length));

/** Every string inside a JSON value with its path (for templates given as objects). */
export function stringsIn(value: unknown, path: PropertyKey[] = []): { path: PropertyKey[]; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => stringsIn(v, [...path, k]));
  }
  return [];
}

/** Column references made by `{{key}}` placeholders; `{{secrets.name}}` is resolved at run time. */
export function templateRefs(value: unknown, path: PropertyKey[], mustExist: boolean): ColumnRef[] {
  return stringsIn(value, path).flatMap(({ path: at, text }) =>
    placeholders(text)
      .filter((name) => !isSecretPlaceholder(name))
      .map((key): ColumnRef => ({ path: at, key, mustExist })),
  );
}

/** Does `ref` name `column`? */
export const refersTo = (ref: ColumnRef, column: { id: string; key: string }) =>
  ref.id === column.id || ref.key === column.key;
