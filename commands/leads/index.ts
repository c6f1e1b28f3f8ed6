import { createLeadRoute } from './create-lead.ts';
import { deleteLeadRoute, patchLeadRoute } from './edit-lead.ts';

export const leadCommands = [createLeadRoute, patchLeadRoute, deleteLeadRoute];
