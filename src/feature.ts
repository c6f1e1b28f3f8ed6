import type { ServiceDeps } from './deps.ts';
import { EventRegistry } from './event-store/registry.ts';
import type { RouteModule } from './http/routes.ts';
import type { Projection } from './projection/types.ts';
import type { AnyStreamDefinition } from './stream.ts';
import type { WorkerSpec } from './work/worker.ts';

/** A kind of background work of a feature, made from the service's dependencies (DESIGN section 9). */
export type WorkerFactory = (deps: ServiceDeps) => WorkerSpec;

/**
 * A feature declares itself once (app/features/<feature>.ts): its streams with their event
 * schemas and evolve, its commands, its queries and its read models. app/modules.ts lists them.
 */
export interface Feature {
  readonly name: string;
  readonly streams: readonly AnyStreamDefinition[];
  /** commands/<feature>/index.ts */
  readonly commands: readonly RouteModule[];
  /** queries/<feature>/index.ts */
  readonly queries: readonly RouteModule[];
  /** projections/<feature>/ (reactors too: projections that enqueue work items instead of keeping tables) */
  readonly projections: readonly Projection[];
  /** What does the work items its reactors enqueue. */
  readonly workers?: readonly WorkerFactory[];
}

/** What a list of features adds up to: one registry of their events, their read models, their routes. */
export interface Composition {
  readonly features: readonly Feature[];
  readonly registry: EventRegistry;
  readonly projections: readonly Projection[];
  readonly routes: readonly RouteModule[];
  readonly workers: readonly WorkerFactory[];
}

export function compose(
  features: readonly Feature[],
  extraStreams: readonly AnyStreamDefinition[] = [],
): Composition {
  return {
    features,
    registry: new EventRegistry([...features.flatMap((f) => f.streams), ...extraStreams]),
    projections: features.flatMap((f) => f.projections),
    routes: features.flatMap((f) => [...f.commands, ...f.queries]),
    workers: features.flatMap((f) => f.workers ?? []),
  };
}
