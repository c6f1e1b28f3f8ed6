import type { Command } from 'commander';
import { clientFor } from '../http.ts';
import { type Column, emit, formatTable } from '../output.ts';
import { positiveInt } from '../pages.ts';

/** What every search answers: its results, which provider, and whether it came from the cache. */
export interface SearchAnswer<T> {
  results: T[];
  provider: string;
  cached: boolean;
}

/** A line saying who answered, and that a cached answer cost nothing. */
export const answeredBy = (answer: { provider: string; cached: boolean }) =>
  `(${answer.provider}${answer.cached ? ', from the cache: no credits' : ''})`;

/** Results as a table, with who answered under it. */
export function emitResults<T>(command: Command, answer: SearchAnswer<T>, columns: Column<T>[]): void {
  emit(command, answer, () =>
    answer.results.length === 0
      ? `No results ${answeredBy(answer)}`
      : `${formatTable(answer.results, columns)}\n${answeredBy(answer)}`,
  );
}

const limitOption = (command: Command) => command.option('--limit <n>', 'results wanted, 1-50', positiveInt);

interface WebOptions {
  limit?: number;
  language?: string;
  timeRange?: string;
}

interface WebResult {
  title: string;
  url: string;
  publishedAt?: string;
  source: string;
}

interface Found {
  [field: string]: unknown;
}

/**
 * `stk search web | news | companies | people`: the public-web searches (search:run). Each uncached
 * search costs credits; the answer says when it came from the organization's cache.
 */
export function registerSearchCommands(program: Command): void {
  const search = program
    .command('search')
    .description('public-web, news, company and people searches through the configured providers');

  for (const kind of ['web', 'news'] as const) {
    limitOption(
      search
        .command(kind)
        .description(kind === 'web' ? 'search the public web (SearXNG)' : 'search the news (SearXNG)')
        .argument('<query...>', 'what to search for')
        .option('--language <code>', 'a language code such as en or de-CH')
        .option('--time-range <range>', 'day, week, month or year'),
    ).action(async (words: string[], options: WebOptions, command: Command) => {
      const client = await clientFor(command);
      const answer = await client.post<SearchAnswer<WebResult>>(`/api/search/${kind}`, {
        query: words.join(' '),
        ...options,
      });
      emitResults(command, answer, [
        ...(kind === 'news' ? [{ header: 'PUBLISHED', value: (r: WebResult) => r.publishedAt }] : []),
        { header: 'SOURCE', value: (r) => r.source },
        { header: 'TITLE', value: (r) => r.title },
        { header: 'URL', value: (r) => r.url },
      ]);
    });
  }

  limitOption(
    search
      .command('companies')
      .description('find companies by free text, --domain or --name (people-data provider)')
      .argument('[query...]', 'free text')
      .option('--domain <domain>', 'the company domain, e.g. acme.com')
      .option('--name <name>', 'the company name'),
  ).action(async (words: string[], options: Found, command: Command) => {
    const client = await clientFor(command);
    const answer = await client.post<SearchAnswer<Found>>('/api/search/companies', {
      ...(words.length > 0 ? { query: words.join(' ') } : {}),
      ...options,
    });
    emitResults(command, answer, [
      { header: 'NAME', value: (c) => c.name },
      { header: 'DOMAIN', value: (c) => c.domain },
      { header: 'INDUSTRY', value: (c) => c.industry },
      { header: 'SIZE', value: (c) => c.size },
      { header: 'LOCATION', value: (c) => c.location },
    ]);
  });

  limitOption(
    search
      .command('people')
      .description('find people by free text, --domain, --name with --company, or --linkedin-url')
      .argument('[query...]', 'free text')
      .option('--domain <domain>', "the employer's domain")
      .option('--name <name>', "the person's full name (with --company)")
      .option('--company <company>', 'the employer (with --name)')
      .option('--linkedin-url <url>', "the person's LinkedIn profile"),
  ).action(async (words: string[], options: Found, command: Command) => {
    const client = await clientFor(command);
    const answer = await client.post<SearchAnswer<Found>>('/api/search/people', {
      ...(words.length > 0 ? { query: words.join(' ') } : {}),
      ...options,
    });
    emitResults(command, answer, [
      { header: 'NAME', value: (p) => p.fullName },
      { header: 'TITLE', value: (p) => p.jobTitle },
      { header: 'COMPANY', value: (p) => p.companyName },
      { header: 'LINKEDIN', value: (p) => p.linkedinUrl },
    ]);
  });
}
