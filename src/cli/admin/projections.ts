import type { Command } from 'commander';
import { rebuildRecords } from '../../projection/rebuild-records.ts';
import {
  RebuildBusyError,
  RebuildFailedError,
  type RebuildResult,
  rebuildProjection,
} from '../../projection/rebuild.ts';
import { ProjectionAdminError, retryProjection, skipEvent } from '../../projection/repair-admin.ts';
import { type ProjectionReport, projectionReports } from '../../projection/status-admin.ts';
import type { Projection } from '../../projection/types.ts';
import { CliError, UsageError } from '../errors.ts';
import { type AdminContext, withAdmin } from './context.ts';
import { formatCount, formatSeconds, textTable, toJson } from './format.ts';
import { createProgress } from './progress.ts';

const out = (text: string) => process.stdout.write(`${text}\n`);

const STATE_LABEL: Record<ProjectionReport['state'], string> = {
  running: 'running',
  catching_up: 'catching up',
  rebuilding: 'rebuilding',
  failed: 'FAILED',
  not_started: 'not started',
};

const lagText = (lag: ProjectionReport['lag']) => `${lag.atLeast ? '>=' : ''}${formatCount(lag.events)}`;
const position = (p: { commit: string; prepare: string } | null) => (p ? `${p.commit}/${p.prepare}` : '-');

function printStatus(reports: ProjectionReport[]): void {
  out(
    textTable(
      ['PROJECTION', 'VERSION', 'STATE', 'CHECKPOINT', 'HEAD', 'LAG EVENTS', 'LAG', 'RUNNER', 'LAST ERROR'],
      reports.map((r) => [
        r.name,
        r.storedVersion === null || r.storedVersion === r.version ? String(r.version) : `${r.storedVersion}->${r.version}`,
        STATE_LABEL[r.state],
        position(r.checkpoint),
        position(r.head),
        lagText(r.lag),
        formatSeconds(r.lag.seconds),
        r.runnerActive ? 'active' : 'none',
        r.lastError ? r.lastError.slice(0, 60) : '-',
      ]),
      [5, 6],
    ),
  );
  for (const r of reports) {
    const notes: string[] = [];
    if (r.failedEventId)
      notes.push(
        `stopped at event ${r.failedEventId}: ${r.lastError}`,
        `repair: stk admin projections retry ${r.name}  |  stk admin projections skip ${r.name} ${r.failedEventId}`,
      );
    if (r.rebuild) {
      const rb = r.rebuild;
      notes.push(
        `rebuild to v${rb.version} (${rb.reason}, by ${rb.actor}, since ${rb.startedAt}): ` +
          `${rb.active ? 'running' : 'interrupted (run the rebuild again to resume)'}, ` +
          `at ${position(rb.checkpoint)}, ${lagText(rb.lag)} events to go` +
          (rb.lastError ? `, stopped at event ${rb.failedEventId}: ${rb.lastError}` : ''),
      );
    }
    for (const a of r.audit)
      notes.push(
        `${a.at.toISOString()} ${a.action} by ${a.actor}${a.eventId ? ` (event ${a.eventId})` : ''}`,
      );
    if (notes.length > 0) out(`\n${r.name}:\n${notes.map((n) => `  ${n}`).join('\n')}`);
  }
}

async function rebuildOne(ctx: AdminContext, projection: Projection, batchSize?: number): Promise<RebuildResult> {
  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write('\nstopping after the batch in flight (Ctrl-C again to quit at once)...\n');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = createProgress(projection.name, 'events');
  try {
    const result = await rebuildProjection(ctx.store, ctx.pool, projection, {
      actor: ctx.actor,
      reason: 'operator',
      batchSize,
      signal: abort.signal,
      onProgress: (p) => progress.update(p.processed, p.total),
    });
    progress.stop();
    return result;
  } catch (error) {
    progress.stop();
    if (error instanceof RebuildBusyError || error instanceof RebuildFailedError) throw new CliError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerProjectionCommands(admin: Command): void {
  const projections = admin.command('projections').description('read models: status, rebuild, repair');

  projections
    .command('status')
    .description('per projection: version, state, checkpoint, head, lag, last error, rebuild, audit')
    .option('--audit <n>', 'audited actions to show per projection', '3')
    .action(async (options: { audit: string }, command: Command) =>
      withAdmin(command, async (ctx) => {
        const reports = await projectionReports(ctx.store, ctx.pool, ctx.projections, {
          auditLimit: Number(options.audit) || 0,
        });
        if (ctx.json) out(toJson(reports));
        else printStatus(reports);
      }),
    );

  projections
    .command('rebuild [name]')
    .description('blue/green rebuild into shadow tables, swapped in when caught up; resumes when interrupted')
    .option('--all', 'rebuild every projection, one after another')
    .option('--batch-size <n>', 'events per transaction', (v) => Number.parseInt(v, 10))
    .action(async (name: string | undefined, options: { all?: boolean; batchSize?: number }, command: Command) => {
      if (!name === !options.all) throw new UsageError('name one projection, or pass --all');
      if (options.batchSize !== undefined && !(options.batchSize > 0))
        throw new UsageError('--batch-size must be a positive integer');
      await withAdmin(command, async (ctx) => {
        const targets = options.all ? ctx.projections : [ctx.projection(name!)];
        const results: RebuildResult[] = [];
        for (const projection of targets) {
          const result = await rebuildOne(ctx, projection, options.batchSize);
          results.push(result);
          if (!ctx.json) {
            out(
              result.outcome === 'swapped'
                ? `${projection.name}: rebuilt v${result.version} and swapped in ` +
                    `(${formatCount(result.processed)} events in ${result.seconds.toFixed(1)} s${result.resumed ? ', resumed' : ''})`
                : `${projection.name}: interrupted at ${result.position.commit}/${result.position.prepare}; ` +
                    `run the same command to resume`,
            );
          }
          if (result.outcome === 'interrupted') break;
        }
        if (ctx.json) out(toJson(results));
        if (results.some((r) => r.outcome === 'interrupted')) throw new CliError('rebuild interrupted');
      });
    });

  projections
    .command('abandon-rebuild <name>')
    .description('drop a rebuild under way (its shadow tables); the live tables are untouched')
    .action(async (name: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => {
        ctx.projection(name);
        const dropped = await rebuildRecords.abandon(ctx.pool, name);
        out(dropped ? `${name}: rebuild abandoned` : `${name}: no rebuild under way`);
      }),
    );

  projections
    .command('retry <name>')
    .description('apply the event a failed projection stopped at again (after fixing its cause); audited')
    .action(async (name: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => {
        ctx.projection(name);
        try {
          const retried = await retryProjection(ctx.pool, name, ctx.actor);
          if (ctx.json) out(toJson({ projection: name, action: 'retry', actor: ctx.actor, ...retried }));
          else out(`${name}: retrying event ${retried.eventId} (was: ${retried.error}); recorded for ${ctx.actor}`);
        } catch (error) {
          if (error instanceof ProjectionAdminError) throw new CliError(error.message);
          throw error;
        }
      }),
    );

  projections
    .command('skip <name> <eventId>')
    .description('pass the poison event a failed projection stopped at, without applying it; audited')
    .action(async (name: string, eventId: string, _options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => {
        try {
          const { event } = await skipEvent(ctx.store, ctx.pool, ctx.projection(name), eventId, ctx.actor);
          if (ctx.json)
            out(toJson({ projection: name, action: 'skip', actor: ctx.actor, eventId, type: event.type, stream: event.stream }));
          else out(`${name}: skipped ${event.type} ${eventId} of ${event.stream}; recorded for ${ctx.actor}`);
        } catch (error) {
          if (error instanceof ProjectionAdminError) throw new CliError(error.message);
          throw error;
        }
      }),
    );
}
