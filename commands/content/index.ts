import { syncRoutes } from './sync-articles.ts';

export const contentCommands = [syncRoutes()];
