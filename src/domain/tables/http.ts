import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { EventMetadata, Position } from '../../event-store/port.ts';
import { principalOf } from '../../http/access-hook.ts';
import type { AppDeps } from '../../http/app.ts';

// Ids are checked for their form in the handlers: a malformed id names nothing and answers 404, not 400.
export const TableParams = z.object({ tableId: z.string() });
export const ColumnParams = z.object({ tableId: z.string(), columnId: z.string() });

export const TableSchema = z
  .object({ id: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Table' });

export const TableNameSchema = z.string().trim().min(1).max(200);

/** Who did it and for which request: stamped on every event a request appends. */
export function eventMetadata(request: FastifyRequest): EventMetadata {
  return { correlationId: request.id, actor: principalOf(request).keyId };
}

/** Read-your-writes: a command answers once the named read models have applied what it appended. */
export async function readYourWrites(
  deps: AppDeps,
  position: Position | undefined,
  projections: readonly string[],
): Promise<void> {
  if (position) await deps.projections.waitFor(position, projections);
}
