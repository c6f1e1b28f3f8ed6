import type { FastifyRequest } from 'fastify';
import { sequencesProjection } from '../../projections/sequences/sequences.ts';
import { checkSequenceReferences, loadSequenceForWrite } from '../../services/sequences/load.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { newSequenceId, sequencePath, sequenceView } from '../../src/domain/sequences/access.ts';
import type { SequenceEvent, SequenceStep } from '../../src/domain/sequences/events.ts';
import { CreateSequenceBody, SequenceParams, SequenceSchema } from '../../src/domain/sequences/schemas.ts';
import { sequenceStream } from '../../src/domain/sequences/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface CreateSequence {
  sequenceId: string;
  organizationId: string;
  name: string;
  sourceTableId: string | null;
  steps: SequenceStep[];
  clonedFrom: string | null;
}

/** A new sequence starts as DRAFT. */
export const createSequence = sequenceStream.decider(
  (command: CreateSequence, state, now): SequenceEvent[] => {
    if (state.id) throw new AppError('conflict', `Sequence ${command.sequenceId} already exists.`);
    return [{ type: 'SequenceCreated', data: { ...command, at: now.toISOString() } }];
  },
);

async function create(deps: ServiceDeps, request: FastifyRequest, command: CreateSequence) {
  const result = await handleCommand({
    store: deps.store,
    stream: sequenceStream.name(command.sequenceId),
    decider: createSequence,
    command,
    metadata: eventMetadata(request),
    now: deps.clock(),
  });
  await readYourWrites(deps, result.appended?.position, [sequencesProjection]);
  return sequenceView(result.state);
}

/** POST /api/sequences: 201, DRAFT, with Location. */
export const createSequenceRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/sequences',
    {
      config: { access: 'sequences:write' },
      schema: {
        operationId: 'createSequence',
        tags: ['sequences'],
        summary: 'Create a sequence (DRAFT)',
        body: CreateSequenceBody,
        response: { 201: SequenceSchema },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const { name, sourceTableId, steps } = request.body;
      await checkSequenceReferences(deps.store, organizationId, request.body);
      const sequenceId = newSequenceId();
      const view = await create(deps, request, {
        sequenceId,
        organizationId,
        name,
        sourceTableId: sourceTableId ?? null,
        steps,
        clonedFrom: null,
      });
      return reply.code(201).header('location', sequencePath(sequenceId)).send(view);
    },
  );
};

/** POST /api/sequences/{id}/clone: a DRAFT copy of the steps (and table), without enrollments. */
export const cloneSequenceRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/sequences/:sequenceId/clone',
    {
      config: { access: 'sequences:write' },
      schema: {
        operationId: 'cloneSequence',
        tags: ['sequences'],
        summary: 'Clone a sequence: a DRAFT copy of its steps, no enrollments',
        params: SequenceParams,
        response: { 201: SequenceSchema },
      },
    },
    async (request, reply) => {
      const { state } = await loadSequenceForWrite(
        deps.store,
        request.params.sequenceId,
        principalOf(request),
      );
      const sequenceId = newSequenceId();
      const view = await create(deps, request, {
        sequenceId,
        organizationId: state.organizationId,
        name: `${state.name} (copy)`.slice(0, 200),
        sourceTableId: state.sourceTableId,
        steps: state.steps,
        clonedFrom: state.id,
      });
      return reply.code(201).header('location', sequencePath(sequenceId)).send(view);
    },
  );
};
