import { createTableRoute } from './create-table.ts';
import { deleteTableRoute } from './delete-table.ts';
import { renameTableRoute } from './rename-table.ts';

export const tableCommands = [createTableRoute, renameTableRoute, deleteTableRoute];
