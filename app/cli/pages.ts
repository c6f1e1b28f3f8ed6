import type { Command } from 'commander';
import { UsageError } from './errors.ts';
import type { ApiClient } from './http.ts';

/** Commander's parser for whole-number options (`--limit 50`): anything else is a usage error. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`not a positive whole number: ${value}`);
  return n;
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** The options of a command listing a cursor-paginated collection. */
export const pageOptions = (command: Command, what: string, max = 100): Command =>
  command
    .option('--limit <n>', `${what} per page, 1-${max}`, positiveInt)
    .option('--cursor <cursor>', 'the next cursor a previous page printed')
    .option('--all', 'follow the cursor through every page');

/** One page of a `{ data, nextCursor }` list, or every page with --all. */
export async function fetchPages<T>(
  client: ApiClient,
  path: string,
  options: PageOptions,
  query: Record<string, string | undefined> = {},
): Promise<{ data: T[]; nextCursor: string | null }> {
  const data: T[] = [];
  let cursor = options.cursor;
  let nextCursor: string | null;
  do {
    const page = await client.get<{ data: T[]; nextCursor: string | null }>(path, {
      ...query,
      limit: options.limit,
      cursor,
    });
    data.push(...page.data);
    nextCursor = page.nextCursor;
    cursor = nextCursor ?? undefined;
  } while (options.all && nextCursor);
  return { data, nextCursor };
}

/** A page as text, with how to ask for the next one. */
export const withMore = (text: string, nextCursor: string | null) =>
  nextCursor ? `${text}\nmore: --cursor ${nextCursor}` : text;
