import type { FastifyRequest } from 'fastify';
import { sequencesProjection } from '../../projections/sequences/sequences.ts';
import { loadSequenceForWrite } from '../../services/sequences/load.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { SequenceEvent } from '../../src/domain/sequences/events.ts';
import { type SequenceState, sequenceStream } from '../../src/domain/sequences/streams.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { Decider } from '../../src/stream.ts';

/** A command on an existing sequence of the key's organization: checked, decided, waited for. */
export async function onSequence<C>(
  deps: ServiceDeps,
  request: FastifyRequest,
  sequenceId: string,
  decider: Decider<SequenceState, C, SequenceEvent>,
  command: C,
): Promise<SequenceState> {
  const loaded = await loadSequenceForWrite(deps.store, sequenceId, principalOf(request));
  const result = await handleCommand({
    store: deps.store,
    stream: sequenceStream.name(sequenceId),
    decider,
    command,
    metadata: eventMetadata(request),
    now: deps.clock(),
    loaded,
  });
  await readYourWrites(deps, result.appended?.position, [sequencesProjection]);
  return result.state;
}
