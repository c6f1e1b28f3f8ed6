import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { withAdmin } from './context.ts';

// The work is loaded on use, so that `stk` starts fast for every other command.
const actions = () => import('./projection-actions.ts');

export function registerProjectionCommands(admin: Command): void {
  const projections = admin.command('projections').description('read models: status, rebuild, repair');

  projections
    .command('status')
    .description('per projection: version, state, checkpoint, head, lag, last error, rebuild, audit')
    .option('--audit <n>', 'audited actions to show per projection', '3')
    .action(async (options: { audit: string }, command: Command) =>
      withAdmin(command, async (ctx) => (await actions()).showStatus(ctx, Number(options.audit) || 0)),
    );

  projections
    .command('rebuild [name]')
    .description('blue/green rebuild into shadow tables, swapped in when caught up; resumes when interrupted')
    .option('--all', 'rebuild every projection, one after another')
    .option('--batch-size <n>', 'events per transaction', (v) => Number.parseInt(v, 10))
    .action(
      async (name: string | undefined, options: { all?: boolean; batchSize?: number }, command: Command) => {
        if (!name === !options.all) throw new UsageError('name one projection, or pass --all');
        if (options.batchSize !== undefined && !(options.batchSize > 0))
          throw new UsageError('--batch-size must be a positive integer');
        await withAdmin(command, async (ctx) =>
          (await actions()).rebuild(
            ctx,
            options.all ? ctx.projections : [ctx.projection(name!)],
            options.batchSize,
          ),
        );
      },
    );

  projections
    .command('abandon-rebuild <name>')
    .description('drop a rebuild under way (its shadow tables); the live tables are untouched')
    .action(async (name: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => (await actions()).abandon(ctx, name)),
    );

  projections
    .command('retry <name>')
    .description('apply the event a failed projection stopped at again (after fixing its cause); audited')
    .action(async (name: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => (await actions()).retry(ctx, name)),
    );

  projections
    .command('skip <name> <eventId>')
    .description('pass the poison event a failed projection stopped at, without applying it; audited')
    .action(async (name: string, eventId: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => (await actions()).skip(ctx, name, eventId)),
    );
}
