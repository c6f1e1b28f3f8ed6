import { sequenceCommands } from '../../commands/sequences/index.ts';
import { enrollmentsProjection } from '../../projections/sequences/enrollments.ts';
import { senderAccountsProjection } from '../../projections/sequences/sender-accounts.ts';
import { sequencesProjection } from '../../projections/sequences/sequences.ts';
import { sequenceQueries } from '../../queries/sequences/index.ts';
import {
  leadEnrollmentsStream,
  routingStream,
  senderAccountStream,
  sequenceStream,
  userSendersStream,
} from '../../src/domain/sequences/streams.ts';
import type { Feature } from '../../src/feature.ts';

/** Sequences: outreach definitions, their state machine, enrollments of leads, sender accounts. */
export const sequencesFeature: Feature = {
  name: 'sequences',
  streams: [sequenceStream, leadEnrollmentsStream, senderAccountStream, routingStream, userSendersStream],
  commands: sequenceCommands,
  queries: sequenceQueries,
  projections: [sequencesProjection, enrollmentsProjection, senderAccountsProjection],
};
