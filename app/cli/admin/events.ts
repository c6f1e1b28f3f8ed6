import type { Command } from 'commander';
import type { RecordedEvent } from '../../../src/event-store/port.ts';
import { START } from '../../../src/event-store/port.ts';
import { CliError, UsageError } from '../errors.ts';
import { printLines } from '../output.ts';
import { withAdmin } from './context.ts';
import { toJson } from './format.ts';

const eventJson = (e: RecordedEvent) => ({
  id: e.id,
  stream: e.stream,
  revision: String(e.revision),
  position: { commit: String(e.position.commit), prepare: String(e.position.prepare) },
  type: e.type,
  recordedAt: e.recordedAt.toISOString(),
  data: e.data,
  metadata: e.metadata,
});

const eventLine = (e: RecordedEvent) =>
  `${e.recordedAt.toISOString()}  ${e.stream}#${e.revision}  ${e.type}  ${e.id}  ` +
  `actor=${e.metadata.actor ?? '-'}  ${JSON.stringify(e.data)}`;

function parseTime(value: string): Date {
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime()))
    throw new UsageError(`--at expects an ISO 8601 time such as 2026-01-31T12:00:00Z, got "${value}"`);
  return at;
}

export function registerEventCommands(admin: Command): void {
  const events = admin.command('events').description('the log: read a stream, follow it, replay a state');

  events
    .command('read <stream>')
    .description("a stream's events, oldest first")
    .option('--from <revision>', 'first revision to show', '0')
    .option('--limit <n>', 'at most this many events')
    .action(async (stream: string, options: { from: string; limit?: string }, command: Command) =>
      withAdmin(command, async (ctx) => {
        const list = await ctx.store.readStream(stream, {
          from: BigInt(options.from),
          limit: options.limit ? Number(options.limit) : undefined,
        });
        if (ctx.json) printLines(toJson(list.map(eventJson)));
        else if (list.length === 0) printLines(`${stream}: no events`);
        else for (const e of list) printLines(eventLine(e));
      }),
    );

  events
    .command('tail')
    .description('follow the log live (Ctrl-C to stop); one line per event, JSON lines with --json')
    .option('--type <type...>', 'only these event types')
    .option('--stream-prefix <prefix>', 'only streams starting with this')
    .option('--from-start', 'replay the whole log first instead of starting at its head')
    .action(
      async (options: { type?: string[]; streamPrefix?: string; fromStart?: boolean }, command: Command) =>
        withAdmin(command, async (ctx) => {
          const types = options.type ? new Set(options.type) : undefined;
          const from = options.fromStart ? START : await ctx.store.head();
          await new Promise<void>((resolve, reject) => {
            const subscription = ctx.store.subscribeAll(from).subscribe({
              next: (e) => {
                if (types && !types.has(e.type)) return;
                if (options.streamPrefix && !e.stream.startsWith(options.streamPrefix)) return;
                printLines(ctx.json ? JSON.stringify(eventJson(e)) : eventLine(e));
              },
              error: reject,
            });
            const stop = () => {
              subscription.unsubscribe();
              resolve();
            };
            process.once('SIGINT', stop);
            process.once('SIGTERM', stop);
          });
        }),
    );

  events
    .command('at <stream>')
    .description('the state of a stream (an article, a column, a table) as it was at a time, by replay')
    .requiredOption('--at <time>', 'ISO 8601 time')
    .action(async (stream: string, options: { at: string }, command: Command) => {
      const at = parseTime(options.at);
      await withAdmin(command, async (ctx) => {
        const { NoReplayerError, stateAt } = await import('../../../src/history/state-at.ts');
        try {
          const result = await stateAt(ctx.store, ctx.registry, stream, at);
          if (ctx.json) {
            printLines(
              toJson({
                ...result,
                at: result.at.toISOString(),
                recordedAt: result.recordedAt?.toISOString() ?? null,
              }),
            );
            return;
          }
          if (result.revision === null) {
            printLines(`${stream} had no events yet at ${at.toISOString()} (${result.eventsAfter} later)`);
            return;
          }
          printLines(
            `${stream} at ${at.toISOString()}: revision ${result.revision} (recorded ${result.recordedAt?.toISOString()}), ` +
              `${result.eventsReplayed} event(s) replayed, ${result.eventsAfter} later`,
          );
          printLines(toJson(result.state));
        } catch (error) {
          if (error instanceof NoReplayerError) throw new CliError(error.message);
          throw error;
        }
      });
    });
}
