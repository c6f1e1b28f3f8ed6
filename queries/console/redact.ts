/**
 * Secret values never reach a console page. Events hold none in clear (a secret's value is ciphertext,
 * a key or a password only its hash), but even those are shown as hidden: what an operator needs is
 * that a secret is there and whether it changed, never what it holds.
 */
const SECRET_KEY = /(ciphertext|hash|password|secret|token|apikey|privatekey)$/i;

export const HIDDEN = '‹hidden›';

export const isSecretKey = (key: string) => SECRET_KEY.test(key);

/** A copy of a JSON value with every secret-named member's value hidden. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] = isSecretKey(key) && member !== null && member !== undefined ? HIDDEN : redact(member);
  }
  return out;
}

export interface Change {
  /** `config.prompt`, `cells[2].value`; empty for the whole value. */
  path: string;
  kind: 'added' | 'removed' | 'changed' | 'secret changed';
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const child = (path: string, key: string | number) =>
  typeof key === 'number'
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? path
        ? `${path}.${key}`
        : key
      : `${path}[${JSON.stringify(key)}]`;

/**
 * What changed from `before` to `after`, member by member. Under a secret-named member only the fact
 * that it changed is said (compared here, on the server), never either value.
 */
export function diff(before: unknown, after: unknown, path = '', secret = false): Change[] {
  if (same(before, after)) return [];
  if (secret) return [{ path, kind: 'secret changed' }];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => {
      const p = child(path, key);
      const hidden = isSecretKey(key);
      if (!(key in before))
        return [{ path: p, kind: 'added' as const, after: hidden ? HIDDEN : redact(after[key]) }];
      if (!(key in after))
        return [{ path: p, kind: 'removed' as const, before: hidden ? HIDDEN : redact(before[key]) }];
      return diff(before[key], after[key], p, hidden);
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: Change[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      if (i >= before.length) changes.push({ path: child(path, i), kind: 'added', after: redact(after[i]) });
      else if (i >= after.length)
        changes.push({ path: child(path, i), kind: 'removed', before: redact(before[i]) });
      else changes.push(...diff(before[i], after[i], child(path, i)));
    }
    return changes;
  }
  if (before === undefined || before === null) return [{ path, kind: 'added', after: redact(after) }];
  if (after === undefined || after === null) return [{ path, kind: 'removed', before: redact(before) }];
  return [{ path, kind: 'changed', before: redact(before), after: redact(after) }];
}
