import type { ServiceDeps } from '../../src/deps.ts';
import type { EventRegistry } from '../../src/event-store/registry.ts';
import type { Projection } from '../../src/projection/types.ts';
import type { ConsoleRebuilds } from './rebuilds.ts';

/**
 * What the console's routes share within one service: the rebuilds it started (a part of the service,
 * app/parts.ts), the service's projections and its event registry (stream definitions, for history).
 */
export interface ConsoleContext {
  readonly rebuilds: ConsoleRebuilds;
  projections(): Projection[];
  /** A projection of the service by name, or undefined. */
  projection(name: string): Projection | undefined;
  registry(): EventRegistry;
}

export function consoleContext(deps: ServiceDeps, registry: () => EventRegistry): ConsoleContext {
  const projections = () => [...deps.projections.runners.values()].map((r) => r.projection);
  return {
    rebuilds: deps.parts.consoleRebuilds,
    projections,
    projection: (name) => projections().find((p) => p.name === name),
    registry,
  };
}
