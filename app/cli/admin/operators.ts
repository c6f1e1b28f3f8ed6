import type { Command } from 'commander';
import { OPERATOR_NAME, operators } from '../../../src/auth/operators.ts';
import { CliError, UsageError } from '../errors.ts';
import { printLines } from '../output.ts';
import { withAdmin } from './context.ts';
import { textTable, toJson } from './format.ts';

/**
 * `stk admin operators issue|list|revoke`: the people who may sign in to the operator console (/admin).
 * A credential is made here only, never over HTTP, shown once and kept as its hash.
 */
export function registerOperatorCommands(admin: Command): void {
  const group = admin.command('operators').description('operator console sign-in credentials (/admin)');

  group
    .command('issue <name>')
    .description('a new console credential for <name>, shown once (replaces the one it had)')
    .action(async (name: string, _options: unknown, command: Command) => {
      if (!OPERATOR_NAME.test(name))
        throw new UsageError(
          `an operator name is 1 to 64 letters, digits, ".", "_", "-" or "@", first a letter or digit; got "${name}"`,
        );
      await withAdmin(command, async (ctx) => {
        const { operator, credential } = await operators.issue(ctx.pool, name, ctx.actor);
        if (ctx.json) printLines(toJson({ name: operator.name, id: operator.id, credential }));
        else {
          printLines(credential);
          process.stderr.write(
            `operator ${operator.name}: sign in at <service>/admin/sign-in with the credential above; it is not shown again\n`,
          );
        }
      });
    });

  group
    .command('list')
    .description('operators and their credentials (never the secrets)')
    .action(async (_options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => {
        const list = await operators.list(ctx.pool);
        if (ctx.json) printLines(toJson(list));
        else if (list.length === 0) printLines('no operator yet: stk admin operators issue <name>');
        else
          printLines(
            textTable(
              ['NAME', 'ID', 'ISSUED BY', 'ISSUED', 'LAST SIGN-IN', 'STATE'],
              list.map((o) => [
                o.name,
                o.id,
                o.issuedBy,
                o.createdAt.toISOString(),
                o.lastSignIn?.toISOString() ?? '-',
                o.revokedAt ? `revoked ${o.revokedAt.toISOString()}` : 'live',
              ]),
            ),
          );
      }),
    );

  group
    .command('revoke <name>')
    .description("revoke <name>'s credential and end their console sessions")
    .action(async (name: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => {
        if (!(await operators.revoke(ctx.pool, name))) throw new CliError(`no live credential for ${name}`);
        if (ctx.json) printLines(toJson({ name, revoked: true }));
        else printLines(`${name}: credential revoked, sessions ended`);
      }),
    );
}
