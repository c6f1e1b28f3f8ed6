import type { FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../deps.ts';
import type { EventMetadata, Position } from '../event-store/port.ts';
import { ProjectionLagError } from '../projection/projections.ts';
import type { Projection } from '../projection/types.ts';
import { principalOf } from './access-hook.ts';

/** Who did it and for which request: stamped on every event a request appends. */
export function eventMetadata(request: FastifyRequest): EventMetadata {
  return { correlationId: request.id, actor: principalOf(request).keyId };
}

/**
 * Read-your-writes: a command answers once the named read models have applied what it appended, so a
 * GET right after it shows it. The wait is bounded, and running out of it is not a failure: the write
 * has committed, and answering 500 would make a client retry a create that landed. Resolves false
 * (and logs) when the read models are still behind; the caller answers from the events it decided.
 */
export async function readYourWrites(
  deps: Pick<ServiceDeps, 'projections' | 'logger'>,
  position: Position | undefined,
  projections: readonly Projection[],
): Promise<boolean> {
  if (!position) return true;
  const behind = (names: readonly string[]) => {
    deps.logger.warn({ projections: names }, 'read models behind a committed write; answering anyway');
    return false;
  };
  // A projection stopped at a poison event moves only when an operator acts: no use waiting for it.
  const failed = new Set(deps.projections.failedHere());
  const stopped = projections.filter((p) => failed.has(p.name)).map((p) => p.name);
  if (stopped.length > 0) return behind(stopped);
  try {
    await deps.projections.waitFor(position, projections);
    return true;
  } catch (error) {
    if (!(error instanceof ProjectionLagError)) throw error;
    return behind(error.projections);
  }
}
