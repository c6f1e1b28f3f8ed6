import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { type ApiClient, clientFor } from '../http.ts';
import { emit, formatRecord, formatTable, wantsJson } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, positiveInt, withMore } from '../pages.ts';
import {
  asksBeforeRunning,
  type CliStreams,
  confirmRun,
  processStreams,
  type RunEstimate,
} from '../run-confirm.ts';
import { type ScopeOptions, scopeBody, scopeOptions } from '../run-scope.ts';
import { followRun, runEndedError } from '../run-watch.ts';

interface Run {
  id: string;
  tableId: string;
  columnId: string;
  status: string;
  counts: {
    total: number;
    queued: number;
    running: number;
    succeeded: number;
    failed: number;
    skipped: number;
  };
  credits: { reserved: number; charged: number; refunded: number };
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
}

interface RunRow {
  rowId: string;
  status: string;
  httpStatus?: number | null;
  durationMs?: number | null;
  attempts?: number | null;
  error?: { code: string; message: string } | null;
}

const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;
const columnPath = (tableId: string, columnId: string) =>
  `/api/tables/${encodeURIComponent(tableId)}/columns/${encodeURIComponent(columnId)}`;
const finished = (run: Run) => run.counts.succeeded + run.counts.failed + run.counts.skipped;

const showRun = (run: Run) =>
  formatRecord([
    ['ID', run.id],
    ['Status', run.status],
    ['Table', run.tableId],
    ['Column', run.columnId],
    [
      'Rows',
      `${run.counts.total} (queued ${run.counts.queued}, running ${run.counts.running}, succeeded ${run.counts.succeeded}, failed ${run.counts.failed}, skipped ${run.counts.skipped})`,
    ],
    [
      'Credits',
      `reserved ${run.credits.reserved}, charged ${run.credits.charged}, refunded ${run.credits.refunded}`,
    ],
    ['Created', run.createdAt],
    ['Started', run.startedAt],
    ['Finished', run.finishedAt],
    ['Error', run.error],
  ]);

const runTable = (runs: Run[]) =>
  formatTable(runs, [
    { header: 'ID', value: (r) => r.id },
    { header: 'COLUMN', value: (r) => r.columnId },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'DONE', value: (r) => `${finished(r)}/${r.counts.total}` },
    { header: 'FAILED', value: (r) => r.counts.failed },
    { header: 'CHARGED', value: (r) => r.credits.charged },
    { header: 'CREATED', value: (r) => r.createdAt },
  ]);

type Client = Pick<ApiClient, 'get' | 'post'>;

/**
 * Follows a run until it ends, as `followRun` shows it (a bar on a terminal, JSON lines otherwise),
 * then fails with the run's exit code (RUN_EXIT_CODES) unless it succeeded.
 */
async function watchRun(
  client: Client,
  runId: string,
  options: { intervalMs: number; json: boolean; streams: CliStreams },
): Promise<void> {
  const ended = await followRun(() => client.get<Run>(runPath(runId)), {
    label: `run ${runId}`,
    intervalMs: options.intervalMs,
    json: options.json,
    human: showRun,
    streams: options.streams,
  });
  const error = runEndedError(ended);
  if (error) throw error;
}

export interface ColumnRunOptions extends ScopeOptions {
  watch?: boolean;
  idempotencyKey?: string;
  interval?: number;
  yes?: boolean;
}

/**
 * `stk columns run`: at a terminal, the estimate first and a question (asksBeforeRunning: not with
 * `--yes`, not without a terminal), then the run; with `--watch`, followed to its end.
 */
export async function runColumn(
  command: Command,
  client: Client,
  target: { tableId: string; columnId: string },
  options: ColumnRunOptions,
  streams: CliStreams = processStreams(),
): Promise<void> {
  const path = columnPath(target.tableId, target.columnId);
  const body = scopeBody(options);
  if (asksBeforeRunning(streams, options.yes ?? false)) {
    const estimate = await client.post<RunEstimate>(`${path}/estimate`, body);
    // The rows it takes that hold a value already: they run again unless --only-empty.
    const rerun = options.onlyEmpty
      ? undefined
      : estimate.eligible -
        (await client.post<RunEstimate>(`${path}/estimate`, { ...body, onlyEmpty: true })).eligible;
    if (!(await confirmRun(estimate, rerun, streams))) {
      throw new CliError('not started: the run was not confirmed (--yes starts it without asking)');
    }
  }
  const run = await client.post<Run>(
    `${path}/run`,
    body,
    options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : undefined,
  );
  if (!options.watch) return emit(command, run, () => showRun(run), streams.stdout);
  await watchRun(client, run.id, { intervalMs: options.interval ?? 500, json: wantsJson(command), streams });
}

const intervalOption = (command: Command) =>
  command.option('--interval <ms>', 'how often to look, in milliseconds (default 500)', positiveInt);

/** `stk columns run | stop`: added to the columns command. */
export function addColumnRunCommands(columns: Command): void {
  intervalOption(
    scopeOptions(
      columns
        .command('run')
        .description('run a column over its eligible rows (the same rows as estimate)')
        .argument('<tableId>')
        .argument('<columnId>')
        .option(
          '--watch',
          'follow the run until it ends; exits 3 if it failed, 4 if partially succeeded, 5 if stopped',
        )
        .option(
          '-y, --yes',
          'start without asking (at a terminal, the estimate is shown and confirmed first)',
        )
        .option('--idempotency-key <key>', 'send the run again safely: the same key starts it once'),
    ),
  ).action(async (tableId: string, columnId: string, options: ColumnRunOptions, command: Command) => {
    await runColumn(command, await clientFor(command), { tableId, columnId }, options);
  });

  columns
    .command('stop')
    .description("stop the column's active run: no new row starts, the rest are skipped")
    .argument('<tableId>')
    .argument('<columnId>')
    .action(async (tableId: string, columnId: string, _options: unknown, command: Command) => {
      const run = await (await clientFor(command)).post<Run>(`${columnPath(tableId, columnId)}/stop`);
      emit(command, run, () => showRun(run));
    });
}

/** `stk runs list | get | rows | stop | watch`. */
export function registerRunCommands(program: Command): void {
  const runs = program.command('runs').description('column runs: progress, rows, stop');

  pageOptions(
    runs.command('list').description("a table's runs, newest first").argument('<tableId>'),
    'runs',
  ).action(async (tableId: string, options: PageOptions, command: Command) => {
    const page = await fetchPages<Run>(
      await clientFor(command),
      `/api/tables/${encodeURIComponent(tableId)}/runs`,
      options,
    );
    emit(command, page, () => withMore(runTable(page.data), page.nextCursor));
  });

  runs
    .command('get')
    .description('show a run')
    .argument('<runId>')
    .action(async (runId: string, _options: unknown, command: Command) => {
      const run = await (await clientFor(command)).get<Run>(runPath(runId));
      emit(command, run, () => showRun(run));
    });

  pageOptions(
    runs
      .command('rows')
      .description("each row's outcome in a run")
      .argument('<runId>')
      .option('--status <status>', 'only rows with this outcome (e.g. failed)'),
    'rows',
    1000,
  ).action(async (runId: string, options: PageOptions & { status?: string }, command: Command) => {
    const page = await fetchPages<RunRow>(await clientFor(command), `${runPath(runId)}/rows`, options, {
      status: options.status,
    });
    emit(command, page, () =>
      withMore(
        formatTable(page.data, [
          { header: 'ROW', value: (r) => r.rowId },
          { header: 'STATUS', value: (r) => r.status },
          { header: 'HTTP', value: (r) => r.httpStatus ?? '' },
          { header: 'MS', value: (r) => r.durationMs ?? '' },
          { header: 'ATTEMPTS', value: (r) => r.attempts ?? '' },
          { header: 'ERROR', value: (r) => (r.error ? `${r.error.code}: ${r.error.message}` : '') },
        ]),
        page.nextCursor,
      ),
    );
  });

  runs
    .command('stop')
    .description('stop a run: no new row starts, the rest are skipped')
    .argument('<runId>')
    .action(async (runId: string, _options: unknown, command: Command) => {
      const run = await (await clientFor(command)).post<Run>(`${runPath(runId)}/stop`);
      emit(command, run, () => showRun(run));
    });

  intervalOption(
    runs
      .command('watch')
      .description('follow a run until it ends; exits 3 if it failed, 4 if partially succeeded, 5 if stopped')
      .argument('<runId>'),
  ).action(async (runId: string, options: { interval?: number }, command: Command) => {
    await watchRun(await clientFor(command), runId, {
      intervalMs: options.interval ?? 500,
      json: wantsJson(command),
      streams: processStreams(),
    });
  });
}
