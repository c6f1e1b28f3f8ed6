import { createColumnRoute } from './create-column.ts';
import { deleteColumnRoute } from './delete-column.ts';
import { patchColumnRoute } from './patch-column.ts';
import { reorderColumnsRoute } from './reorder-columns.ts';

export const columnCommands = [createColumnRoute, patchColumnRoute, deleteColumnRoute, reorderColumnsRoute];
