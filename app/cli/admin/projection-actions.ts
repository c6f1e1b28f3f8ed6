import {
  RebuildBusyError,
  RebuildFailedError,
  RebuildRefusedError,
  type RebuildResult,
  rebuildProjection,
} from '../../../src/projection/rebuild.ts';
import {
  abandonRebuild,
  ProjectionAdminError,
  retryProjection,
  skipEvent,
} from '../../../src/projection/repair-admin.ts';
import { type ProjectionReport, projectionReports } from '../../../src/projection/status-admin.ts';
import type { Projection } from '../../../src/projection/types.ts';
import { CliError } from '../errors.ts';
import { printLines } from '../output.ts';
import type { AdminContext } from './context.ts';
import { formatCount, formatSeconds, textTable, toJson } from './format.ts';
import { createProgress } from './progress.ts';

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
  printLines(
    textTable(
      ['PROJECTION', 'VERSION', 'STATE', 'CHECKPOINT', 'HEAD', 'LAG EVENTS', 'LAG', 'RUNNER', 'LAST ERROR'],
      reports.map((r) => [
        r.name,
        r.storedVersion === null || r.storedVersion === r.version
          ? String(r.version)
          : `${r.storedVersion}->${r.version}`,
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
    if (notes.length > 0) printLines(`\n${r.name}:\n${notes.map((n) => `  ${n}`).join('\n')}`);
  }
}

async function rebuildOne(
  ctx: AdminContext,
  projection: Projection,
  batchSize?: number,
): Promise<RebuildResult> {
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
    if (
      error instanceof RebuildBusyError ||
      error instanceof RebuildFailedError ||
      error instanceof RebuildRefusedError
    )
      throw new CliError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function showStatus(ctx: AdminContext, auditLimit: number): Promise<void> {
  const reports = await projectionReports(ctx.store, ctx.pool, ctx.projections, { auditLimit });
  if (ctx.json) printLines(toJson(reports));
  else printStatus(reports);
}

export async function rebuild(
  ctx: AdminContext,
  targets: readonly Projection[],
  batchSize?: number,
): Promise<void> {
  const results: RebuildResult[] = [];
  for (const projection of targets) {
    // --all passes by what must not be rebuilt; named alone, it is refused (rebuildOne).
    if (projection.notRebuildable && targets.length > 1) {
      if (!ctx.json) printLines(`${projection.name}: not rebuilt (${projection.notRebuildable})`);
      continue;
    }
    const result = await rebuildOne(ctx, projection, batchSize);
    results.push(result);
    if (!ctx.json) {
      printLines(
        result.outcome === 'swapped'
          ? `${projection.name}: rebuilt v${result.version} and swapped in ` +
              `(${formatCount(result.processed)} events in ${result.seconds.toFixed(1)} s${result.resumed ? ', resumed' : ''})`
          : `${projection.name}: interrupted at ${result.position.commit}/${result.position.prepare}; ` +
              `run the same command to resume`,
      );
    }
    if (result.outcome === 'interrupted') break;
  }
  if (ctx.json) printLines(toJson(results));
  if (results.some((r) => r.outcome === 'interrupted')) throw new CliError('rebuild interrupted');
}

export async function abandon(ctx: AdminContext, name: string): Promise<void> {
  ctx.projection(name);
  try {
    const dropped = await abandonRebuild(ctx.pool, name, ctx.actor);
    printLines(dropped ? `${name}: rebuild abandoned` : `${name}: no rebuild under way`);
  } catch (error) {
    if (error instanceof ProjectionAdminError) throw new CliError(error.message);
    throw error;
  }
}

export async function retry(ctx: AdminContext, name: string): Promise<void> {
  ctx.projection(name);
  try {
    const retried = await retryProjection(ctx.pool, name, ctx.actor);
    if (ctx.json) printLines(toJson({ projection: name, action: 'retry', actor: ctx.actor, ...retried }));
    else
      printLines(
        `${name}: retrying event ${retried.eventId} (was: ${retried.error}); recorded for ${ctx.actor}`,
      );
  } catch (error) {
    if (error instanceof ProjectionAdminError) throw new CliError(error.message);
    throw error;
  }
}

export async function skip(ctx: AdminContext, name: string, eventId: string): Promise<void> {
  try {
    const { event } = await skipEvent(ctx.store, ctx.pool, ctx.projection(name), eventId, ctx.actor);
    if (ctx.json)
      printLines(
        toJson({
          projection: name,
          action: 'skip',
          actor: ctx.actor,
          eventId,
          type: event.type,
          stream: event.stream,
        }),
      );
    else
      printLines(`${name}: skipped ${event.type} ${eventId} of ${event.stream}; recorded for ${ctx.actor}`);
  } catch (error) {
    if (error instanceof ProjectionAdminError) throw new CliError(error.message);
    throw error;
  }
}
