import type { RouteModule } from './http/app.ts';
import type { Projection } from './projection/types.ts';

/**
 * The table of contents of the service: every read model and every feature's routes. A new
 * feature adds its projection and its route modules here.
 */
export const projections: Projection[] = [];

export const routeModules: RouteModule[] = [];
