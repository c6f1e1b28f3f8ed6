import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { positiveInt } from '../pages.ts';
import { answeredBy, emitResults, type SearchAnswer } from './search.ts';

interface Status {
  provider: string | null;
  configured: boolean;
  reachable: boolean;
  connectedAccounts: number | null;
  problem: { code: string; detail: string } | null;
  senderAccounts: { id: string; address: string; dailyLimit: number }[];
}

interface Limits {
  day: string;
  accounts: { id: string; address: string; dailyLimit: number; usedToday: number; remainingToday: number }[];
}

type Row = Record<string, unknown>;

/** `stk linkedin status | limits | search | profile | posts` (linkedin:read). */
export function registerLinkedinCommands(program: Command): void {
  const linkedin = program
    .command('linkedin')
    .description(
      'LinkedIn sender accounts, their daily limits, and LinkedIn data through the configured provider',
    );

  linkedin
    .command('status')
    .description(
      'the linkedin sender accounts, and whether the LinkedIn data provider is configured and answers',
    )
    .action(async (_options: unknown, command: Command) => {
      const status = await (await clientFor(command)).get<Status>('/api/linkedin/status');
      emit(command, status, () =>
        [
          formatRecord([
            ['Provider', status.provider ?? 'none configured'],
            ['Reachable', status.reachable ? 'yes' : 'no'],
            ['Connected accounts', status.connectedAccounts],
            ['Problem', status.problem ? `${status.problem.code}: ${status.problem.detail}` : null],
            ['Sender accounts', status.senderAccounts.length],
          ]),
          ...(status.senderAccounts.length > 0
            ? [
                formatTable(status.senderAccounts, [
                  { header: 'ID', value: (s) => s.id },
                  { header: 'ADDRESS', value: (s) => s.address },
                  { header: 'DAILY LIMIT', value: (s) => s.dailyLimit },
                ]),
              ]
            : []),
        ].join('\n\n'),
      );
    });

  linkedin
    .command('limits')
    .description('per linkedin sender account: its daily limit, used and remaining today (UTC)')
    .action(async (_options: unknown, command: Command) => {
      const limits = await (await clientFor(command)).get<Limits>('/api/linkedin/limits');
      emit(command, limits, () =>
        limits.accounts.length === 0
          ? `No linkedin sender accounts (${limits.day}).`
          : `${limits.day}\n${formatTable(limits.accounts, [
              { header: 'ID', value: (a) => a.id },
              { header: 'ADDRESS', value: (a) => a.address },
              { header: 'LIMIT', value: (a) => a.dailyLimit },
              { header: 'USED', value: (a) => a.usedToday },
              { header: 'REMAINING', value: (a) => a.remainingToday },
            ])}`,
      );
    });

  linkedin
    .command('search')
    .description('search LinkedIn people or companies')
    .argument('<query...>')
    .option('--type <type>', 'people or companies', 'people')
    .option('--limit <n>', 'results wanted, 1-50', positiveInt)
    .action(async (words: string[], options: { type: string; limit?: number }, command: Command) => {
      if (options.type !== 'people' && options.type !== 'companies')
        throw new UsageError(`--type is people or companies, not ${options.type}`);
      const answer = await (await clientFor(command)).post<SearchAnswer<Row>>('/api/linkedin/search', {
        query: words.join(' '),
        ...options,
      });
      emitResults(command, answer, [
        { header: 'NAME', value: (r) => r.name },
        { header: 'HEADLINE', value: (r) => r.headline },
        { header: 'LOCATION', value: (r) => r.location },
        { header: 'URL', value: (r) => r.url },
      ]);
    });

  linkedin
    .command('profile')
    .description('one LinkedIn profile')
    .argument('<handleOrUrl>', 'janedoe or https://www.linkedin.com/in/janedoe')
    .action(async (handleOrUrl: string, _options: unknown, command: Command) => {
      const client = await clientFor(command);
      const answer = await client.get<{ profile: Row; provider: string; cached: boolean }>(
        `/api/linkedin/profiles/${encodeURIComponent(handleOrUrl)}`,
      );
      const p = answer.profile;
      emit(command, answer, () =>
        [
          formatRecord([
            ['Name', [p.firstName, p.lastName].filter(Boolean).join(' ')],
            ['Headline', p.headline],
            ['Location', p.location],
            ['URL', p.url],
            ['Followers', p.followerCount],
            ['Connections', p.connectionsCount],
          ]),
          answeredBy(answer),
        ].join('\n'),
      );
    });

  linkedin
    .command('posts')
    .description("a LinkedIn profile's recent posts")
    .argument('<handleOrUrl>', 'janedoe or https://www.linkedin.com/in/janedoe')
    .option('--limit <n>', 'posts wanted, 1-50', positiveInt)
    .action(async (handleOrUrl: string, options: { limit?: number }, command: Command) => {
      const client = await clientFor(command);
      const answer = await client.get<{ posts: Row[]; provider: string; cached: boolean }>(
        '/api/linkedin/posts',
        {
          profile: handleOrUrl,
          limit: options.limit,
        },
      );
      emit(command, answer, () =>
        [
          formatTable(answer.posts, [
            { header: 'PUBLISHED', value: (p) => p.publishedAt },
            { header: 'REACTIONS', value: (p) => p.reactions },
            { header: 'TEXT', value: (p) => String(p.text).slice(0, 80) },
            { header: 'URL', value: (p) => p.url },
          ]),
          answeredBy(answer),
        ].join('\n'),
      );
    });
}
