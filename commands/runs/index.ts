import { runColumnRoute } from './run-column.ts';
import { stopColumnRoute, stopRunRoute } from './stop-routes.ts';

export const runCommands = [runColumnRoute, stopRunRoute, stopColumnRoute];
