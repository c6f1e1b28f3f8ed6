import { UsageError } from './errors.ts';

/** Commander's parser for whole-number options (`--limit 50`): anything else is a usage error. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`not a positive whole number: ${value}`);
  return n;
}
