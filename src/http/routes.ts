import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../deps.ts';

/** The app with zod schemas as its type provider: what every route registers on. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<ZodTypeProvider>();
export type ZodApp = ReturnType<typeof typed>;

/** A feature's routes: registered with the app and its dependencies. */
export type RouteModule = (app: ZodApp, deps: ServiceDeps) => void | Promise<void>;
