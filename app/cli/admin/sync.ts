import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import pino from 'pino';
import { siteContentProjection } from '../../../projections/content/site-content.ts';
import { articleWriter } from '../../../services/content/article-writer.ts';
import { runFullSync, withFullSyncLock } from '../../../services/content/sync-full.ts';
import type { SyncContext } from '../../../services/content/sync-item.ts';
import { type SyncError, SyncReport } from '../../../services/content/sync-report.ts';
import { contentApiFromConfig } from '../../../src/content-api/client.ts';
import { AppError } from '../../../src/errors.ts';
import { loggerOptions } from '../../../src/logger.ts';
import { advisoryLockHeld, lockKeys } from '../../../src/projection/locks.ts';
import { CliError } from '../errors.ts';
import { printLines } from '../output.ts';
import { withAdmin } from './context.ts';
import { toJson } from './format.ts';
import { createProgress, type Progress } from './progress.ts';

/** The sync's own report, also moving the progress line as items finish. */
class ProgressReport extends SyncReport {
  private done = 0;
  failures = 0;

  constructor(private readonly progress: Progress) {
    super();
  }

  override stored(...args: Parameters<SyncReport['stored']>): void {
    super.stored(...args);
    this.progress.update(++this.done);
  }

  override failed(order: number, error: SyncError): void {
    super.failed(order, error);
    this.failures++;
    this.progress.update(++this.done);
  }
}

export function registerSyncCommands(admin: Command): void {
  const sync = admin.command('sync').description('content sync from the command line');

  sync
    .command('full')
    .description('page through the content API and store every article (as the cron-triggered sync does)')
    .option('--kind <kind>', 'content kind to list', 'blog')
    .action(async (options: { kind: string }, command: Command) =>
      withAdmin(command, async (ctx) => {
        const client = contentApiFromConfig(ctx.config);
        if (!client) throw new CliError('CONTENT_API_URL is not set: there is no content API to sync from');
        const progress = createProgress(`full sync (${options.kind})`, 'articles');
        const report = new ProgressReport(progress);
        const syncContext: SyncContext = {
          client,
          write: articleWriter(ctx.store),
          clock: () => new Date(),
          metadata: { correlationId: randomUUID(), actor: `admin:${ctx.actor}` },
          source: 'full',
          report,
          // Per-item failures are in the report; the log gets what the report cannot say.
          logger: pino(loggerOptions('warn'), pino.destination(2)),
        };
        let firstPageFailed = false;
        try {
          firstPageFailed = (await withFullSyncLock(ctx.pool, () => runFullSync(syncContext, options.kind)))
            .firstPageFailed;
        } catch (error) {
          if (error instanceof AppError) throw new CliError(error.detail);
          throw error;
        } finally {
          progress.stop();
        }
        const response = report.toResponse();
        if (ctx.json) printLines(toJson(response));
        else {
          printLines(`synced ${response.synced} article(s), ${response.errors.length} error(s)`);
          for (const e of response.errors)
            printLines(
              `  ${e.kind}/${e.slug || '(list)'}: ${e.code}: ${e.message}${e.status ? ` (${e.status})` : ''}`,
            );
        }
        if (!(await advisoryLockHeld(ctx.pool, lockKeys.runner(siteContentProjection.name))))
          process.stderr.write(
            'note: no service is running site_content now; the public pages show these articles once it runs\n',
          );
        if (firstPageFailed) throw new CliError('the content API could not be listed');
      }),
    );
}
