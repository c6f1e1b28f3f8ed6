import { cloneSequenceRoute, createSequenceRoute } from './create-sequence.ts';
import { deleteSequenceRoute, patchSequenceRoute } from './edit-sequence.ts';
import { enrollRoute } from './enroll.ts';
import { enrollmentActionRoutes } from './enrollment-actions.ts';
import { createSenderRoute, deleteSenderRoute } from './sender-accounts.ts';
import { sequenceTransitionRoutes } from './transitions.ts';

export const sequenceCommands = [
  createSequenceRoute,
  cloneSequenceRoute,
  patchSequenceRoute,
  deleteSequenceRoute,
  ...sequenceTransitionRoutes,
  enrollRoute,
  ...enrollmentActionRoutes,
  createSenderRoute,
  deleteSenderRoute,
];
