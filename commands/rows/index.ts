import { deleteRowRoute } from './delete-row.ts';
import { deleteRowsRoute } from './delete-rows.ts';
import { insertRowsRoute } from './insert-rows.ts';
import { patchRowRoute } from './patch-row.ts';

export const rowCommands = [insertRowsRoute, patchRowRoute, deleteRowRoute, deleteRowsRoute];
