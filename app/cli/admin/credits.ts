import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { grantCredits } from '../../../commands/accounts/grant-credits.ts';
import { organizationsProjection } from '../../../projections/accounts/organizations.ts';
import { handleCommand } from '../../../src/command.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { AppError } from '../../../src/errors.ts';
import { advisoryLockHeld, lockKeys } from '../../../src/projection/locks.ts';
import { CliError, UsageError } from '../errors.ts';
import { printLines } from '../output.ts';
import { withAdmin } from './context.ts';
import { toJson } from './format.ts';

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`the amount is a whole number of credits, got "${value}"`);
  return Number(value);
}

/** `stk admin credits grant <organizationId> <amount> --reason <text>`: appended to the organization's stream. */
export function registerCreditCommands(admin: Command): void {
  const credits = admin.command('credits').description("an organization's credits");

  credits
    .command('grant <organizationId> <amount>')
    .description('grant credits to an organization (recorded in its stream with you as the actor)')
    .requiredOption('--reason <text>', 'why: kept with the grant')
    .action(
      async (organizationId: string, amountText: string, options: { reason: string }, command: Command) => {
        const amount = wholeNumber(amountText);
        await withAdmin(command, async (ctx) => {
          let balance: number;
          try {
            const result = await handleCommand({
              store: ctx.store,
              stream: organizationStream.name(organizationId),
              decider: grantCredits,
              command: { organizationId, amount, reason: options.reason },
              metadata: { correlationId: randomUUID(), actor: `admin:${ctx.actor}` },
              now: new Date(),
            });
            balance = result.state.balance;
          } catch (error) {
            if (error instanceof AppError) {
              const details = (error.extra.errors ?? []).map((e) => `${e.path}: ${e.message}`).join('; ');
              throw new CliError(details ? `${error.detail} (${details})` : error.detail);
            }
            throw error;
          }
          if (ctx.json)
            printLines(toJson({ organizationId, amount, reason: options.reason.trim(), balance }));
          else printLines(`granted ${amount} credits to ${organizationId}: balance ${balance}`);
          if (!(await advisoryLockHeld(ctx.pool, lockKeys.runner(organizationsProjection.name))))
            process.stderr.write(
              'note: no service is running the organizations read model now; GET /api/me shows the grant once it runs\n',
            );
        });
      },
    );
}
