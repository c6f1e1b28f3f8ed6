import { type Command, Option } from 'commander';
import { AUTO_RUN, COLUMN_KINDS, DATA_TYPES, ORIGINS } from '../../../src/domain/columns/fields.ts';
import { jsonArgument } from '../arguments.ts';
import { UsageError } from '../errors.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, withMore } from '../pages.ts';
import { type ScopeOptions, scopeBody, scopeOptions } from '../run-scope.ts';
import { addColumnRunCommands } from './runs.ts';

interface Column {
  id: string;
  key: string;
  label: string;
  kind: string;
  dataType: string;
  origin: string;
  status: string;
  autoRun: string;
  config: Record<string, unknown>;
  position: number;
  isImportant: boolean;
}

interface HistoryEntry {
  revision: number;
  type: string;
  at: string;
  actor: string | null;
  changes: Record<string, unknown>;
}

const columnsPath = (tableId: string) => `/api/tables/${encodeURIComponent(tableId)}/columns`;
const columnPath = (tableId: string, columnId: string) =>
  `${columnsPath(tableId)}/${encodeURIComponent(columnId)}`;

function jsonObject(value: string): Record<string, unknown> {
  const parsed = jsonArgument(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--config takes a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function number(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`not a number: ${value}`);
  return n;
}

const showColumn = (c: Column) =>
  formatRecord([
    ['ID', c.id],
    ['Key', c.key],
    ['Label', c.label],
    ['Kind', c.kind],
    ['Data type', c.dataType],
    ['Origin', c.origin],
    ['Status', c.status],
    ['Auto-run', c.autoRun],
    ['Position', c.position],
    ['Important', c.isImportant ? 'yes' : 'no'],
    ['Config', JSON.stringify(c.config)],
  ]);

interface EditOptions {
  label?: string;
  position?: number;
  autoRun?: string;
  important?: boolean;
  config?: Record<string, unknown>;
  /** Raw: a parser may not return null (commander turns it into ''), and null removes the condition. */
  runCondition?: string;
}

/** The body shared by create and patch: --run-condition lands in config.runCondition. */
function editBody(options: EditOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.label !== undefined) body.label = options.label;
  if (options.position !== undefined) body.position = options.position;
  if (options.autoRun !== undefined) body.autoRun = options.autoRun;
  if (options.important !== undefined) body.isImportant = options.important;
  if (options.config !== undefined || options.runCondition !== undefined) {
    body.config = { ...options.config };
    if (options.runCondition !== undefined)
      (body.config as Record<string, unknown>).runCondition = jsonArgument(options.runCondition);
  }
  return body;
}

function editOptions(command: Command): Command {
  return command
    .option('--position <n>', 'float sort order', number)
    .addOption(new Option('--auto-run <mode>', 'when the column runs by itself').choices(AUTO_RUN))
    .option('--important', 'mark the column important')
    .option('--no-important', 'clear the important mark')
    .option(
      '--config <json>',
      'config as inline JSON or @file.json (a patch merges one level deep)',
      jsonObject,
    )
    .option('--run-condition <json>', 'config.runCondition as inline JSON or @file.json; null removes it');
}

/** `stk columns list | get | create | patch | delete | reorder | estimate | history`. */
export function registerColumnCommands(program: Command): void {
  const columns = program.command('columns').description('the columns of a research table');

  columns
    .command('list')
    .description('list the columns of a table, ordered by position')
    .argument('<tableId>')
    .action(async (tableId: string, _options: unknown, command: Command) => {
      const list = await (await clientFor(command)).get<Column[]>(columnsPath(tableId));
      emit(command, list, () =>
        formatTable(list, [
          { header: 'ID', value: (c) => c.id },
          { header: 'KEY', value: (c) => c.key },
          { header: 'LABEL', value: (c) => c.label },
          { header: 'KIND', value: (c) => c.kind },
          { header: 'TYPE', value: (c) => c.dataType },
          { header: 'AUTO-RUN', value: (c) => c.autoRun },
          { header: 'POSITION', value: (c) => c.position },
          { header: 'IMPORTANT', value: (c) => (c.isImportant ? 'yes' : '') },
        ]),
      );
    });

  columns
    .command('get')
    .description('show a column')
    .argument('<tableId>')
    .argument('<columnId>')
    .action(async (tableId: string, columnId: string, _options: unknown, command: Command) => {
      const column = await (await clientFor(command)).get<Column>(columnPath(tableId, columnId));
      emit(command, column, () => showColumn(column));
    });

  editOptions(
    columns
      .command('create')
      .description('create a column')
      .argument('<tableId>')
      .requiredOption('--label <label>', 'display label')
      .option('--key <key>', 'column key (default: derived from the label)')
      .addOption(
        new Option('--kind <kind>', 'what fills the column').choices(COLUMN_KINDS).makeOptionMandatory(),
      )
      .addOption(
        new Option('--data-type <type>', 'type of its values').choices(DATA_TYPES).makeOptionMandatory(),
      )
      .addOption(new Option('--origin <origin>', 'where it was created from').choices(ORIGINS)),
  ).action(
    async (
      tableId: string,
      options: EditOptions & { label: string; key?: string; kind: string; dataType: string; origin?: string },
      command: Command,
    ) => {
      const body = { ...editBody(options), kind: options.kind, dataType: options.dataType } as Record<
        string,
        unknown
      >;
      if (options.key !== undefined) body.key = options.key;
      if (options.origin !== undefined) body.origin = options.origin;
      const column = await (await clientFor(command)).post<Column>(columnsPath(tableId), body);
      emit(command, column, () => showColumn(column));
    },
  );

  editOptions(
    columns
      .command('patch')
      .description('change label, position, auto-run, importance or config of a column')
      .argument('<tableId>')
      .argument('<columnId>')
      .option('--label <label>', 'display label'),
  ).action(async (tableId: string, columnId: string, options: EditOptions, command: Command) => {
    const body = editBody(options);
    if (Object.keys(body).length === 0) {
      throw new UsageError(
        'nothing to change: give --label, --position, --auto-run, --important, --config or --run-condition',
      );
    }
    const column = await (await clientFor(command)).patch<Column>(columnPath(tableId, columnId), body);
    emit(command, column, () => showColumn(column));
  });

  columns
    .command('delete')
    .description('delete a column (refused while another column refers to it)')
    .argument('<tableId>')
    .argument('<columnId>')
    .action(async (tableId: string, columnId: string, _options: unknown, command: Command) => {
      await (await clientFor(command)).delete(columnPath(tableId, columnId));
      emit(command, { id: columnId, deleted: true }, () => `Deleted column ${columnId}.`);
    });

  columns
    .command('reorder')
    .description('put the columns in this order (every column of the table, once each)')
    .argument('<tableId>')
    .argument('<columnIds...>')
    .action(async (tableId: string, columnIds: string[], _options: unknown, command: Command) => {
      const list = await (await clientFor(command)).post<Column[]>(`${columnsPath(tableId)}/reorder`, {
        columnIds,
      });
      emit(command, list, () =>
        formatTable(list, [
          { header: 'POSITION', value: (c) => c.position },
          { header: 'ID', value: (c) => c.id },
          { header: 'KEY', value: (c) => c.key },
        ]),
      );
    });

  scopeOptions(
    columns
      .command('estimate')
      .description('what running the column would take: rows in scope, eligible rows, credits')
      .argument('<tableId>')
      .argument('<columnId>'),
  ).action(async (tableId: string, columnId: string, options: ScopeOptions, command: Command) => {
    const estimate = await (await clientFor(command)).post<Record<string, number | boolean>>(
      `${columnPath(tableId, columnId)}/estimate`,
      scopeBody(options),
    );
    emit(command, estimate, () =>
      formatRecord([
        ['Candidates', estimate.candidates],
        ['Eligible', estimate.eligible],
        ['Skipped (condition)', estimate.skippedByCondition],
        ['Skipped (not empty)', estimate.skippedNotEmpty],
        ['Credits per row', estimate.creditsPerRow],
        ['Estimated credits', estimate.estimatedCredits],
        ['Balance', estimate.balance],
        ['Sufficient', estimate.sufficient ? 'yes' : 'NO'],
      ]),
    );
  });

  pageOptions(
    columns
      .command('history')
      .description("a column's changes, oldest first")
      .argument('<tableId>')
      .argument('<columnId>'),
    'entries',
    500,
  ).action(async (tableId: string, columnId: string, options: PageOptions, command: Command) => {
    const page = await fetchPages<HistoryEntry>(
      await clientFor(command),
      `${columnPath(tableId, columnId)}/history`,
      options,
    );
    emit(command, page, () =>
      withMore(
        formatTable(page.data, [
          { header: 'REV', value: (e) => e.revision },
          { header: 'TYPE', value: (e) => e.type },
          { header: 'AT', value: (e) => e.at },
          { header: 'ACTOR', value: (e) => e.actor },
          { header: 'CHANGES', value: (e) => JSON.stringify(e.changes) },
        ]),
        page.nextCursor,
      ),
    );
  });

  addColumnRunCommands(columns);
}
