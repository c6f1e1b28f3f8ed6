/**
 * The jsonPath of a run condition leaf: keys and `[index]` steps joined by dots (`company.domains[0]`,
 * `$.` in front allowed). The schema refuses any other form; reading a path follows PostgreSQL's `#>`
 * step by step, so that a condition evaluated in SQL and in memory reads the same value.
 */
const PATH = /^(?:[^.[\]]+|\[[0-9]+\])(?:\.[^.[\]]+|\[[0-9]+\])*$/;

/** `company.domains[0]` as the keys and indexes it steps through; undefined for a path of another form. */
export function parseJsonPath(path: string): string[] | undefined {
  const text = path.startsWith('$.') ? path.slice(2) : path;
  if (!PATH.test(text)) return undefined;
  return [...text.matchAll(/([^.[\]]+)|\[([0-9]+)\]/g)].map((m) => m[1] ?? m[2]!);
}

// PostgreSQL reads an array step as C's strtol does: blanks and a sign allowed, the whole text a number.
const ARRAY_STEP = /^[\t\n\v\f\r ]*[+-]?[0-9]+$/;
const INT_RANGE = 2 ** 31;

/** One step as PostgreSQL's `#>` takes it: a key of an object, an index of an array (from the end when negative). */
function step(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    if (!ARRAY_STEP.test(key)) return undefined;
    const index = Number(key.trim());
    if (index >= INT_RANGE || index < -INT_RANGE) return undefined;
    return value[index < 0 ? value.length + index : index];
  }
  if (value !== null && typeof value === 'object') {
    return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return undefined;
}

/** The value at `path` inside a cell (undefined when it does not resolve). */
export function resolvePath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    current = step(current, key);
    if (current === undefined) return undefined;
  }
  return current;
}
