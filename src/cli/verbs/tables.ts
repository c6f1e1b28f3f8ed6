import type { Command } from 'commander';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { positiveInt } from '../parse.ts';

export interface Table {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

const tablePath = (id: string) => `/api/tables/${encodeURIComponent(id)}`;

const showTable = (t: Table) =>
  formatRecord([
    ['ID', t.id],
    ['Name', t.name],
    ['Created', t.createdAt],
    ['Updated', t.updatedAt],
  ]);

/** `stk tables list | create | get | rename | delete`. */
export function registerTableCommands(program: Command): void {
  const tables = program.command('tables').description("the organization's research tables");

  tables
    .command('list')
    .description('list tables, oldest first (one page, or every page with --all)')
    .option('--limit <n>', 'tables per page, 1-100', positiveInt)
    .option('--cursor <cursor>', 'the next cursor a previous page printed')
    .option('--all', 'follow the cursor through every page')
    .option('--name <text>', 'only tables whose name contains this text (case-insensitive)')
    .action(
      async (
        options: { limit?: number; cursor?: string; all?: boolean; name?: string },
        command: Command,
      ) => {
        const { name, ...paging } = options;
        const client = await clientFor(command);
        const { data, nextCursor } = await client.list<Table>('/api/tables', { ...paging, query: { name } });
        emit(command, { data, nextCursor }, () => {
          const table = formatTable(data, [
            { header: 'ID', value: (t) => t.id },
            { header: 'NAME', value: (t) => t.name },
            { header: 'CREATED', value: (t) => t.createdAt },
          ]);
          return nextCursor ? `${table}\nmore: --cursor ${nextCursor}` : table;
        });
      },
    );

  tables
    .command('create')
    .description('create a table')
    .argument('<name>', 'the table name')
    .action(async (name: string, _options: unknown, command: Command) => {
      const table = await (await clientFor(command)).post<Table>('/api/tables', { name });
      emit(command, table, () => showTable(table));
    });

  tables
    .command('get')
    .description('show a table')
    .argument('<tableId>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const table = await (await clientFor(command)).get<Table>(tablePath(id));
      emit(command, table, () => showTable(table));
    });

  tables
    .command('rename')
    .description('rename a table')
    .argument('<tableId>')
    .argument('<name>', 'the new name')
    .action(async (id: string, name: string, _options: unknown, command: Command) => {
      const table = await (await clientFor(command)).patch<Table>(tablePath(id), { name });
      emit(command, table, () => showTable(table));
    });

  tables
    .command('delete')
    .description('delete a table with its columns (refused while another table syncs into it)')
    .argument('<tableId>')
    .action(async (id: string, _options: unknown, command: Command) => {
      await (await clientFor(command)).delete(tablePath(id));
      emit(command, { deleted: id }, () => `Deleted ${id}`);
    });
}
