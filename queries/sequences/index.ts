import { listEnrollmentsRoute } from './enrollments.ts';
import { getSenderRoute, listSendersRoute } from './sender-accounts.ts';
import { getSequenceRoute, listSequencesRoute } from './sequences.ts';

export const sequenceQueries = [
  listSequencesRoute,
  getSequenceRoute,
  listEnrollmentsRoute,
  listSendersRoute,
  getSenderRoute,
];
