import { readFileSync } from 'node:fs';
import { UsageError } from './errors.ts';

/** Text given inline or as @file. */
export function textArgument(value: string): string {
  if (!value.startsWith('@')) return value;
  try {
    return readFileSync(value.slice(1), 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

/** JSON given inline or as @file.json. */
export function jsonArgument(value: string): unknown {
  const text = textArgument(value);
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`not valid JSON: ${value.length > 60 ? `${value.slice(0, 60)}...` : value}`);
  }
}
