import type { Config } from './config/index.ts';

/** Structural equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ak = Object.keys(a);
  const bo = b as Record<string, unknown>;
  return (
    ak.length === Object.keys(bo).length &&
    ak.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]))
  );
}

/**
 * PATCH semantics of config: one level deep. A key present replaces the stored value whole (so
 * runCondition is replaced, never merged into); a key set to null is removed.
 */
export function mergeConfig(current: Config, patch: Record<string, unknown>): Config {
  const next: Config = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * What changed between two configs, as a patch: each changed key with its new value, each removed
 * key with null. Undefined when nothing changed. Stored configs never hold a top-level null, so null
 * is unambiguous.
 */
export function diffConfig(before: Config, after: Config): Record<string, unknown> | undefined {
  const diff: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) diff[key] = null;
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key) || !jsonEqual(before[key], value)) diff[key] = value;
  }
  return Object.keys(diff).length > 0 ? diff : undefined;
}
