/**
 * A pure function of JSON-like input, remembered for the most recently used inputs: for work every
 * request repeats on the same few inputs (a dashboard's filter, polled), whose result is the same
 * each time. Only results are kept (a call that throws is not), a key longer than `maxKeyLength`
 * is not kept at all (a body may be up to the body limit), and results are frozen so that no caller
 * can change what the next one gets.
 */
export function memoize<A, R>(
  compute: (input: A) => R,
  options: {
    entries: number;
    maxKeyLength: number;
    key?: (input: A) => string;
    /** Whether a result is kept (default: every one). */
    keep?: (result: R) => boolean;
  },
): ((input: A) => R) & { readonly size: number } {
  const cache = new Map<string, R>();
  const keyOf = options.key ?? ((input: A) => JSON.stringify(input) ?? 'undefined');
  const memoized = (input: A): R => {
    const key = keyOf(input);
    const hit = cache.get(key);
    if (hit !== undefined) {
      // Most recently used last: Map keeps insertion order, so the first key is the one to evict.
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const result = compute(input);
    if (key.length > options.maxKeyLength || options.keep?.(result) === false) return result;
    deepFreeze(result);
    if (cache.size >= options.entries) cache.delete(cache.keys().next().value as string);
    cache.set(key, result);
    return result;
  };
  return Object.defineProperty(memoized, 'size', { get: () => cache.size }) as typeof memoized & {
    readonly size: number;
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
