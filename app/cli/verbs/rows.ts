import { randomUUID } from 'node:crypto';
import { type Command, Option } from 'commander';
import { createProgress } from '../admin/progress.ts';
import { jsonArgument } from '../arguments.ts';
import { UsageError } from '../errors.ts';
import { type ApiClient, ApiError, clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { type Cells, formatOf, type InputColumn, type InputFormat, readRows } from '../rows-input.ts';

interface Row {
  id: string;
  cells: Cells;
  cellStatus: Record<string, { status: string }>;
  createdAt: string;
  updatedAt: string;
}

interface Page {
  data: Row[];
  nextCursor: string | null;
}

const rowsPath = (tableId: string) => `/api/tables/${encodeURIComponent(tableId)}/rows`;
const rowPath = (tableId: string, rowId: string) => `${rowsPath(tableId)}/${encodeURIComponent(rowId)}`;

/** The API's most per request. */
const BATCH = 1000;

const showRows = (rows: readonly Row[]) =>
  formatTable(rows, [
    { header: 'ID', value: (r) => r.id },
    { header: 'CELLS', value: (r) => JSON.stringify(r.cells) },
  ]);

const showRow = (r: Row) =>
  formatRecord([
    ['ID', r.id],
    ['Created', r.createdAt],
    ['Updated', r.updatedAt],
    ...Object.entries(r.cells).map(([key, value]): [string, unknown] => [key, JSON.stringify(value)]),
    ...Object.entries(r.cellStatus).map(([key, s]): [string, unknown] => [`${key} (status)`, s.status]),
  ]);

function cellsArgument(value: string): Cells {
  const parsed = jsonArgument(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--cells takes a JSON object of cells by column key');
  }
  return parsed as Cells;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > BATCH)
    throw new UsageError(`expected a whole number from 1 to ${BATCH}`);
  return n;
}

/**
 * One batch, retried on a network failure or a 5xx with the same Idempotency-Key: a batch that landed
 * before its answer was lost is answered again, not inserted twice.
 */
async function sendBatch(client: ApiClient, path: string, body: object, key: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.post<{ data: Row[]; results?: { outcome: string }[] }>(path, body, {
        'idempotency-key': key,
      });
    } catch (error) {
      const retryable = !(error instanceof ApiError) || error.status >= 500 || error.status === 409;
      if (!retryable || attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

/** A refusal of a batch names rows by their place in it; the user knows them by their place in the input. */
function renumbered(error: unknown, offset: number): unknown {
  if (!(error instanceof ApiError)) return error;
  const rename = (text: string) => text.replace(/rows\[(\d+)\]/g, (_, i) => `row ${offset + Number(i) + 1}`);
  const problem = error.problem;
  return new ApiError({
    ...problem,
    detail: problem.detail && rename(problem.detail),
    errors: problem.errors?.map((e) => ({ ...e, path: rename(e.path) })),
  });
}

interface InsertOptions {
  format?: InputFormat;
  upsertOn?: string;
  batchSize: number;
}

async function insert(command: Command, tableId: string, file: string | undefined, options: InsertOptions) {
  const client = await clientFor(command);
  const format = formatOf(file, options.format);
  const columns =
    format === 'csv'
      ? await client.get<InputColumn[]>(`/api/tables/${encodeURIComponent(tableId)}/columns`)
      : [];
  const { total, rows } = await readRows(file, format, columns);
  const progress = createProgress(`insert into ${tableId}`, 'rows');
  const run = randomUUID();
  const counts = { created: 0, updated: 0, batches: 0 };
  let batch: Cells[] = [];
  let sent = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const body = {
      rows: batch.map((cells) => ({ cells })),
      ...(options.upsertOn ? { upsertOn: options.upsertOn } : {}),
    };
    try {
      const answer = await sendBatch(client, rowsPath(tableId), body, `${run}-${counts.batches}`);
      const updated = answer.results?.filter((r) => r.outcome === 'updated').length ?? 0;
      counts.updated += updated;
      counts.created += answer.data.length - updated;
    } catch (error) {
      throw renumbered(error, sent);
    }
    counts.batches++;
    sent += batch.length;
    batch = [];
    progress.update(sent, total);
  };
  try {
    for await (const cells of rows) {
      batch.push(cells);
      if (batch.length >= options.batchSize) await flush();
    }
    await flush();
  } finally {
    progress.stop();
  }
  emit(
    command,
    counts,
    () => `${counts.created} row(s) created, ${counts.updated} updated, in ${counts.batches} batch(es)`,
  );
}

/** `stk rows list | get | insert | patch | delete`. */
export function registerRowCommands(program: Command): void {
  const rows = program.command('rows').description('the rows of a research table');

  rows
    .command('list')
    .description('list rows, oldest first unless sorted')
    .argument('<tableId>')
    .option('--limit <n>', `rows per page (1-${BATCH})`, positive)
    .option('--sort <keys>', 'column keys, comma-separated, - for descending (-score,name)')
    .option('--filter <json>', 'a FilterObject as inline JSON or @file.json')
    .option('--cursor <cursor>', 'nextCursor of an earlier page')
    .option('--all', 'follow nextCursor to the last page')
    .action(
      async (
        tableId: string,
        options: { limit?: number; sort?: string; filter?: string; cursor?: string; all?: boolean },
        command: Command,
      ) => {
        const client = await clientFor(command);
        const filter =
          options.filter === undefined ? undefined : JSON.stringify(jsonArgument(options.filter));
        const query = { limit: options.limit, sort: options.sort, filter };
        let page = await client.get<Page>(rowsPath(tableId), { ...query, cursor: options.cursor });
        const data = [...page.data];
        while (options.all && page.nextCursor) {
          page = await client.get<Page>(rowsPath(tableId), { ...query, cursor: page.nextCursor });
          data.push(...page.data);
        }
        const answer = { data, nextCursor: page.nextCursor };
        emit(
          command,
          answer,
          () => `${showRows(data)}${answer.nextCursor ? `\nmore: --cursor ${answer.nextCursor}` : ''}`,
        );
      },
    );

  rows
    .command('get')
    .description('show a row')
    .argument('<tableId>')
    .argument('<rowId>')
    .action(async (tableId: string, rowId: string, _options: unknown, command: Command) => {
      const row = await (await clientFor(command)).get<Row>(rowPath(tableId, rowId));
      emit(command, row, () => showRow(row));
    });

  rows
    .command('insert')
    .description(`insert rows from a JSON or CSV file, or stdin, in batches of ${BATCH}`)
    .argument('<tableId>')
    .argument(
      '[file]',
      'JSON (an array of cell objects) or CSV (a header line of column keys); - or none: stdin',
    )
    .addOption(
      new Option('--format <format>', 'the input format (default: by the file name, else json)').choices([
        'json',
        'csv',
      ]),
    )
    .option('--upsert-on <key>', 'update the row whose value in this column matches instead of inserting')
    .option('--batch-size <n>', `rows per request (1-${BATCH})`, positive, BATCH)
    .action(async (tableId: string, file: string | undefined, options: InsertOptions, command: Command) =>
      insert(command, tableId, file, options),
    );

  rows
    .command('patch')
    .description('change cells of a row (null clears one)')
    .argument('<tableId>')
    .argument('<rowId>')
    .requiredOption('--cells <json>', 'cells by column key as inline JSON or @file.json', cellsArgument)
    .action(async (tableId: string, rowId: string, options: { cells: Cells }, command: Command) => {
      const row = await (await clientFor(command)).patch<Row>(rowPath(tableId, rowId), {
        cells: options.cells,
      });
      emit(command, row, () => showRow(row));
    });

  rows
    .command('delete')
    .description('delete rows by id')
    .argument('<tableId>')
    .argument('<rowIds...>')
    .action(async (tableId: string, rowIds: string[], _options: unknown, command: Command) => {
      const client = await clientFor(command);
      let deleted = 0;
      if (rowIds.length === 1) {
        await client.delete(rowPath(tableId, rowIds[0]!));
        deleted = 1;
      } else {
        for (let i = 0; i < rowIds.length; i += BATCH) {
          const answer = await client.post<{ deleted: number }>(`${rowsPath(tableId)}/delete`, {
            rowIds: rowIds.slice(i, i + BATCH),
          });
          deleted += answer.deleted;
        }
      }
      emit(command, { deleted }, () => `Deleted ${deleted} row(s).`);
    });
}
